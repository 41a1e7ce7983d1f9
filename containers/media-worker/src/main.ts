/**
 * The media worker's entry (`node --import tsx containers/media-worker/src/main.ts`). Keys of the inference
 * and LLM endpoints given as references (`<VAR>_SECRET_ARN`, `<VAR>_PARAMETER`, as the stacks set them) are
 * read first, as a function bundle's entry does, so every package finds them when it reads its settings;
 * only then is the worker (run.ts, and through it the pipelines) loaded.
 */
import { resolveSecretSettings } from '@tessera/platform/secrets';

try {
  await resolveSecretSettings();
} catch (error) {
  process.stderr.write(`Tessera media worker cannot start: ${(error as Error).message}\n`);
  process.exit(1);
}
await import('./run');
