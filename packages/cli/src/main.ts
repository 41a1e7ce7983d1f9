/** Entry point of the `tessera` binary (started by bin/tessera.js through tsx). */
import { tuneV8ForShortJobs } from '@tessera/core';
import { handleError } from './errors';
import { buildProgram } from './program';

// A CLI run is one short job, as the runtime's are.
tuneV8ForShortJobs();

await buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => handleError(error));
