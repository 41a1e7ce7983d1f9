/** The media worker's dependencies and arguments. */
import { type IngestionDeps, ingestion, loadMediaTools } from '@tessera/ingestion';

/**
 * Ingestion as the media worker runs it: the media tools always here, and no media worker to hand jobs to
 * (whatever the environment it inherited says: started by the local runtime's `process` launcher, it gets the
 * runtime's TESSERA_MEDIA_TOOLS=off).
 */
export function mediaWorkerDeps(): IngestionDeps {
  return { ...ingestion(), media: loadMediaTools, mediaTasks: undefined };
}

/** The job of `--job <id>` among the arguments, if any. */
export function jobArgument(argv: readonly string[]): string | undefined {
  const at = argv.indexOf('--job');
  if (at < 0) return undefined;
  const id = argv[at + 1];
  if (!id || id.startsWith('--')) throw new Error('--job needs a job id');
  return id;
}
