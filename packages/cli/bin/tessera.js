#!/usr/bin/env node
// Launcher: runs the TypeScript entry through tsx, so the CLI needs no build step. Paths are resolved
// from this file, never from the working directory, and a tsconfig found there is ignored.
import { register } from 'tsx/esm/api';

register({ tsconfig: false });
try {
  await import('../src/main.ts');
} catch (error) {
  // Only a failure while loading lands here (e.g. an invalid TESSERA_* setting); commands report their own.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
