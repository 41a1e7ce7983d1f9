import type { EntityExtractor, ExtractedEntity } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';
import type { IngestionDeps } from '../src/deps';
import { extractDocuments, fileGraph, storeGraphs } from '../src/extraction';
import type { PipelineOutput } from '../src/pipelines/types';

const output = (text: string): PipelineOutput => ({
  documents: [{ fields: { text } }],
  segments: [{ segment_id: 'chunk_0', text, ts_start: 0, ts_end: 0, modality: 'text' }],
});

/** An extractor that records when each text's extraction starts and ends, and fails on "broken". */
function recordingExtractor(events: string[]): EntityExtractor {
  return {
    name: 'test:recording',
    labels: ['Person'],
    async extract(text): Promise<ExtractedEntity[]> {
      events.push(`start ${text}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push(`end ${text}`);
      if (text === 'broken') throw new Error('the model failed');
      return [{ text, label: 'Person', score: 1, start: 0, end: text.length }];
    },
  };
}

describe('extractDocuments', () => {
  it('extracts the files one after another, each answer in its own promise', async () => {
    const events: string[] = [];
    const deps = { entities: recordingExtractor(events) } as unknown as IngestionDeps;
    const graphs = await Promise.all(
      extractDocuments(deps, [
        { sourceDocId: 'a.md', output: output('Ada') },
        { sourceDocId: 'b.md', output: output('Grace') },
      ]),
    );
    expect(events).toEqual(['start Ada', 'end Ada', 'start Grace', 'end Grace']);
    expect(graphs.map((graph) => graph?.nodes.map((node) => node.name))).toEqual([['Ada'], ['Grace']]);
  });

  it("keeps a file's failure for fileGraph to report, and goes on with the next file", async () => {
    const events: string[] = [];
    const deps = { entities: recordingExtractor(events) } as unknown as IngestionDeps;
    const files = [
      { sourceDocId: 'a.md', output: output('broken') },
      { sourceDocId: 'b.md', output: output('Grace') },
      { sourceDocId: 'c.md', output: { documents: [], segments: [] } },
    ];
    const extracted = extractDocuments(deps, files);
    // Nothing awaits the failed one while the next runs: the process must not see an unhandled rejection.
    expect((await extracted[1])?.nodes).toHaveLength(1);
    expect(await extracted[2]).toBeUndefined();
    const [outcome, empty] = await storeGraphs(deps, 'acme:docs', [
      { sourceDocId: 'a.md', graph: await fileGraph(deps, 'a.md', files[0]!.output, extracted[0]!) },
      { sourceDocId: 'c.md', graph: await fileGraph(deps, 'c.md', files[2]!.output, extracted[2]!) },
    ]);
    expect(outcome).toMatchObject({ nodes: 0, edges: 0 });
    expect(outcome!.note).toMatch(/^graph extraction failed: .*the model failed/);
    expect(empty).toEqual({
      nodes: 0,
      edges: 0,
    });
  });
});
