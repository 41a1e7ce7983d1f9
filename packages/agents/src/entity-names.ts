/** Entity names the tagger finds in a text (the wiki's filing rule counts them). */
import type { EntityExtractor } from '@tessera/extractors';

export function entityNames(extractor: EntityExtractor): (text: string) => Promise<string[]> {
  return async (text) =>
    (await extractor.extract(text, { sourceDocId: 'agent-run', segmentId: 'answer' })).map((e) => e.text);
}
