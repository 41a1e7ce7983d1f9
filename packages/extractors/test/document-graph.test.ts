import { BadRequestError } from '@tessera/core';
import {
  CLAIMS_SKIPPED,
  ClaimExtractionError,
  CompromiseEntityExtractor,
  type DocumentSegment,
  EntityExtractionError,
  extractDocumentGraph,
  GlinerEntityExtractor,
  OpenAIClaimExtractor,
} from '@tessera/extractors';
import { EdgeInput, edgeId, NodeInput, UpsertRequest } from '@tessera/graph';
import { closedPortUrl, failure, type SeenRequest, useServers } from '@tessera/testing';
import { describe, expect, it } from 'vitest';
import { openAIChat, promptText, userMessage } from './servers';

const servers = useServers();
const DOC = 'talks/curie.mp4';

const SEGMENTS: DocumentSegment[] = [
  {
    segment_id: 'transcript_0',
    text: 'Marie Curie was born in Warsaw in 1867. She moved to Paris in 1891 to study at the Sorbonne.',
    ts_start: 0,
    ts_end: 12.5,
    modality: 'video',
  },
  {
    segment_id: 'transcript_1',
    text: 'She won the Nobel Prize in 1903 with Pierre Curie.',
    ts_start: 12.5,
    ts_end: 20,
    modality: 'video',
  },
  { segment_id: 'frame_3', text: '', ts_start: 30, ts_end: 30, modality: 'video' },
];

/** A fake model that answers per segment and, for the second, only resolves "She" when the prompt names her. */
function curieModel() {
  return openAIChat((request) => {
    const text = promptText(request);
    const prompt = userMessage(request);
    if (text.startsWith('Marie Curie was born')) {
      expect(prompt).toContain('- Marie Curie (Person)');
      expect(prompt).not.toContain('Pierre Curie');
      return {
        content: {
          claims: [
            {
              subject: 'Marie Curie',
              predicate: 'was born in',
              object: 'Warsaw',
              evidence_span: 'Marie Curie was born in Warsaw in 1867.',
              confidence: 0.97,
            },
            {
              subject: 'Marie Curie',
              predicate: 'moved to',
              object: 'Paris',
              evidence_span: '',
              confidence: 0.9,
            },
          ],
        },
      };
    }
    if (text.startsWith('She won')) {
      // earlier segments' entities are in the pool, before this segment's own
      expect(prompt).toMatch(
        /- Marie Curie \(Person\)[\s\S]*- Warsaw \(Location\)[\s\S]*- Pierre Curie \(Person\)/,
      );
      return {
        content: {
          claims: [
            {
              subject: 'Marie Curie',
              predicate: 'won',
              object: 'Nobel Prize',
              evidence_span: 'She won the Nobel Prize in 1903',
              confidence: 0.92,
            },
          ],
        },
      };
    }
    throw new Error(`unexpected text: ${text}`);
  });
}

describe('extractDocumentGraph (integration: embedded entities, loopback LLM)', () => {
  it('builds nodes, claim edges and segment back-references the graph upsert accepts', async () => {
    const server = await servers.start(curieModel());
    const graph = await extractDocumentGraph({
      sourceDocId: DOC,
      segments: SEGMENTS,
      entities: new CompromiseEntityExtractor(),
      claims: new OpenAIClaimExtractor({ baseURL: `${server.url}/v1`, model: 'llama-3.1-8b' }),
    });
    // the empty segment costs no call
    expect(server.requests).toHaveLength(2);
    expect(graph.claims).toBe('extracted');

    const byName = Object.fromEntries(graph.nodes.map((node) => [node.name, node]));
    expect(Object.keys(byName).sort()).toEqual(
      ['1867', '1891', '1903', 'Marie Curie', 'Nobel Prize', 'Paris', 'Pierre Curie', 'Warsaw'].sort(),
    );
    expect(byName['Marie Curie']).toEqual({
      name: 'Marie Curie',
      description: `Person mentioned in ${DOC}`,
      kind: 'concept',
      label: 'Person',
      mentions: [
        {
          source_doc_id: DOC,
          segment_id: 'transcript_0',
          ts_start: 0,
          ts_end: 12.5,
          modality: 'video',
          evidence_span: 'Marie Curie',
        },
        // the resolved pronoun grounds her in the second segment too
        {
          source_doc_id: DOC,
          segment_id: 'transcript_1',
          ts_start: 12.5,
          ts_end: 20,
          modality: 'video',
          evidence_span: 'She won the Nobel Prize in 1903',
        },
      ],
    });
    expect(byName.Warsaw).toMatchObject({ label: 'Location', description: `Location mentioned in ${DOC}` });
    expect(byName['1867']).toMatchObject({ label: 'Date' });
    // a claim endpoint no entity pass found becomes a node with an empty description
    expect(byName['Nobel Prize']).toMatchObject({ label: 'Concept', description: '', kind: 'concept' });

    const bornIn = edgeId('marie_curie', 'born_in', 'warsaw', 'transcript_0', 0, 12.5);
    const won = edgeId('marie_curie', 'won', 'nobel_prize', 'transcript_1', 12.5, 20);
    expect(graph.edges).toEqual([
      {
        source: 'Marie Curie',
        target: 'Warsaw',
        relation: 'born_in',
        evidence_span: 'Marie Curie was born in Warsaw in 1867.',
        segment_id: 'transcript_0',
        ts_start: 0,
        ts_end: 12.5,
        modality: 'video',
        provenance: 'INFERRED',
        source_doc_id: DOC,
        confidence: 0.97,
      },
      {
        source: 'Marie Curie',
        target: 'Nobel Prize',
        relation: 'won',
        evidence_span: 'She won the Nobel Prize in 1903',
        segment_id: 'transcript_1',
        ts_start: 12.5,
        ts_end: 20,
        modality: 'video',
        provenance: 'INFERRED',
        source_doc_id: DOC,
        confidence: 0.92,
      },
    ]);
    expect(graph.segments).toEqual({
      transcript_0: {
        entity_ids: ['marie_curie', 'warsaw', '1867', 'paris', '1891'],
        relation_ids: [bornIn],
        claim_ids: [bornIn],
      },
      transcript_1: {
        entity_ids: ['1903', 'pierre_curie', 'marie_curie', 'nobel_prize'],
        relation_ids: [won],
        claim_ids: [won],
      },
      frame_3: { entity_ids: [], relation_ids: [], claim_ids: [] },
    });

    for (const node of graph.nodes) expect(NodeInput.safeParse(node).success).toBe(true);
    for (const edge of graph.edges) expect(EdgeInput.safeParse(edge).success).toBe(true);
    const request = UpsertRequest.parse({ tenant_id: 'acme:prod', source_doc_id: DOC, ...graph });
    expect(request.nodes).toHaveLength(graph.nodes.length);
    expect(request.edges).toHaveLength(2);
  });

  it('emits nodes only and says why when built without a claim extractor', async () => {
    const graph = await extractDocumentGraph({
      sourceDocId: DOC,
      segments: SEGMENTS,
      entities: new CompromiseEntityExtractor(),
    });
    expect(graph.claims).toBe(CLAIMS_SKIPPED);
    expect(graph.claims).toMatch(/^skipped: .*TESSERA_LLM_BASE_URL/);
    expect(graph.edges).toEqual([]);
    expect(graph.nodes.map((node) => node.name)).toContain('Pierre Curie');
    expect(graph.segments.transcript_1).toEqual({
      entity_ids: ['1903', 'pierre_curie'],
      relation_ids: [],
      claim_ids: [],
    });
  });

  it('answers an empty graph for no segments', async () => {
    expect(
      await extractDocumentGraph({
        sourceDocId: DOC,
        segments: [],
        entities: new CompromiseEntityExtractor(),
      }),
    ).toEqual({ nodes: [], edges: [], segments: {}, claims: CLAIMS_SKIPPED });
  });

  it('extracts entities chunk by chunk, at most `concurrency` segments at once, merged in segment order', async () => {
    const server = await servers.start((request: SeenRequest, count) => {
      const { text } = request.body as { text: string };
      const name = /Person (\d+)/.exec(text)?.[0];
      // later requests answer sooner, so segments finish out of order
      return {
        status: 200,
        json: {
          entities: name ? [{ text: name, label: 'Person', score: 0.9, start: 0, end: name.length }] : [],
        },
        delayMs: Math.max(5, 80 - count * 8),
      };
    });
    const segments = Array.from({ length: 8 }, (_, i) => ({
      segment_id: `transcript_${i}`,
      text: `Person ${i} spoke.`,
      ts_start: i,
      ts_end: i + 1,
      modality: 'audio',
    }));
    segments[2]!.text = ['Person 2 spoke.', 'x'.repeat(1990), 'Person 20 answered.'].join('\n\n');
    const graph = await extractDocumentGraph({
      sourceDocId: DOC,
      segments,
      entities: new GlinerEntityExtractor({ url: server.url }),
      concurrency: 3,
    });
    // segment 2 is three chunks of at most 2,000 characters
    expect(server.requests).toHaveLength(10);
    for (const request of server.requests)
      expect((request.body as { text: string }).text.length).toBeLessThanOrEqual(2000);
    expect(server.maxInFlight).toBeLessThanOrEqual(3);
    expect(server.maxInFlight).toBeGreaterThan(1);
    expect(graph.nodes.map((node) => node.name)).toEqual([
      'Person 0',
      'Person 1',
      'Person 2',
      'Person 20',
      'Person 3',
      'Person 4',
      'Person 5',
      'Person 6',
      'Person 7',
    ]);
    expect(graph.segments.transcript_2!.entity_ids).toEqual(['person_2', 'person_20']);
  });

  it('propagates an entity extraction failure naming the document, the segment and the chunk', async () => {
    const url = await closedPortUrl();
    const down = await failure(
      extractDocumentGraph({
        sourceDocId: DOC,
        segments: [SEGMENTS[0]!],
        entities: new GlinerEntityExtractor({ url }),
      }),
    );
    expect(down).toBeInstanceOf(EntityExtractionError);
    expect(down.message).toContain(`source_doc_id '${DOC}', segment 'transcript_0'`);
    expect(down.message).toContain('GLiNER service at');

    const server = await servers.start((_request, count) =>
      count === 2 ? { status: 500, text: 'CUDA out of memory' } : { status: 200, json: { entities: [] } },
    );
    const long = await failure(
      extractDocumentGraph({
        sourceDocId: DOC,
        segments: [
          { ...SEGMENTS[0]!, text: ['a'.repeat(1500), 'b'.repeat(1500), 'c'.repeat(1500)].join('\n\n') },
        ],
        entities: new GlinerEntityExtractor({ url: server.url }),
        concurrency: 1,
      }),
    );
    expect(long).toBeInstanceOf(EntityExtractionError);
    expect(long.message).toContain(
      `segment 'transcript_0': chunk 2 of 3: GLiNER service at ${server.url}/predict_entities answered 500: CUDA out of memory`,
    );
  });

  it('propagates a claim extraction failure naming the segment', async () => {
    const server = await servers.start(() => ({
      status: 502,
      json: { error: { message: 'upstream gone' } },
    }));
    const error = await failure(
      extractDocumentGraph({
        sourceDocId: DOC,
        segments: [SEGMENTS[1]!],
        entities: new CompromiseEntityExtractor(),
        claims: new OpenAIClaimExtractor({ baseURL: `${server.url}/v1`, model: 'm' }),
      }),
    );
    expect(error).toBeInstanceOf(ClaimExtractionError);
    expect(error.message).toContain(`source_doc_id '${DOC}', segment 'transcript_1'`);
    expect(error.message).toContain('answered 502');
  });

  it('rejects malformed segments and a bad concurrency', async () => {
    const entities = new CompromiseEntityExtractor();
    const duplicate = await failure(
      extractDocumentGraph({ sourceDocId: DOC, segments: [SEGMENTS[0]!, SEGMENTS[0]!], entities }),
    );
    expect(duplicate).toBeInstanceOf(BadRequestError);
    expect(duplicate.message).toBe("Invalid segments: segment_id 'transcript_0' appears twice");
    const negative = await failure(
      extractDocumentGraph({ sourceDocId: DOC, segments: [{ ...SEGMENTS[0]!, ts_start: -1 }], entities }),
    );
    expect(negative.message).toContain('Invalid segments: 0.ts_start');
    const zero = await failure(
      extractDocumentGraph({ sourceDocId: DOC, segments: SEGMENTS, entities, concurrency: 0 }),
    );
    expect(zero.message).toContain('Invalid concurrency 0');
  });
});
