/** Entry point of the `tessera` binary (started by bin/tessera.js through tsx). */
import { handleError } from './errors';
import { buildProgram } from './program';

await buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => handleError(error));
