/**
 * The completed-run worker's wiring (`@tessera/agents/completed-runs`): the memories, the wiki and the
 * entity tagger, built once per process, without the agents themselves (the worker runs none).
 */
import { createEntityExtractor } from '@tessera/extractors';
import { memories } from '@tessera/memories';
import { wiki } from '@tessera/wiki';
import type { RecordDeps } from './completed-runs';
import { entityNames } from './entity-names';

export { CompletedRunMessage, recordCompletedRun, recordCompletedRuns } from './completed-runs';

let deps: RecordDeps | undefined;

export function completedRunWriter(): RecordDeps {
  deps ??= { memories: memories(), wiki: wiki(), tag: entityNames(createEntityExtractor()) };
  return deps;
}
