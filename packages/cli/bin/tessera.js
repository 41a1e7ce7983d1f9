#!/usr/bin/env node
// Launcher: runs the TypeScript entry through tsx, so the CLI needs no build step. Paths are resolved
// from this file, never from the working directory, and a tsconfig found there is ignored.
import { setFlagsFromString } from 'node:v8';
import { register } from 'tsx/esm/api';

// As the runtime does (@tessera/core's tuneV8ForShortJobs): a CLI run is one short job, where TurboFan's
// inlining costs more compile time than it gives back.
setFlagsFromString('--no-turbo-inlining');

register({ tsconfig: false });
try {
  await import('../src/main.ts');
} catch (error) {
  // Only a failure while loading lands here (e.g. an invalid TESSERA_* setting); commands report their own.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
