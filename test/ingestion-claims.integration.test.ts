import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlm, startFakeLlm } from './support/fake-llm';
import { upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
let llm: FakeLlm;

const TEXT = [
  'Marie Curie was a physicist who studied radioactivity.',
  'She was born in Warsaw in 1867 and later moved to Paris.',
].join(' ');

beforeAll(async () => {
  llm = await startFakeLlm((prompt) => {
    if (prompt.includes('UNREACHABLE')) return { status: 500, error: 'model crashed' };
    if (!prompt.includes('born in Warsaw')) return { status: 200, content: { claims: [] } };
    return {
      status: 200,
      content: {
        claims: [
          {
            subject: 'Marie Curie',
            predicate: 'was born in',
            object: 'Warsaw',
            evidence_span: 'She was born in Warsaw in 1867',
            confidence: 0.9,
          },
          // Outside the 16 predicates: dropped.
          {
            subject: 'Marie Curie',
            predicate: 'liked',
            object: 'Paris',
            evidence_span: 'Paris',
            confidence: 0.5,
          },
        ],
      },
    };
  });
  rt = await spawnRuntime({ env: { TESSERA_LLM_BASE_URL: llm.url, TESSERA_LLM_MODEL: 'openai/test-model' } });
  expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
});

afterAll(async () => {
  await rt?.stop();
  await llm?.close();
});

describe('server-side graph pass with an LLM endpoint (integration)', () => {
  it('adds claim edges with normalized predicates and patches their ids onto the chunk', async () => {
    const { status, body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'curie.txt', content: TEXT },
    ]);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'complete', documents_fed: 1, graph_edges: 1 });
    expect(body.claims).toMatch(/^claims extracted/);
    // The extractor saw the entities found before it, so pronouns can resolve to them.
    expect(llm.prompts.some((prompt) => prompt.includes('Marie Curie'))).toBe(true);

    const neighbors = await call(rt.url, 'GET', '/graph/neighbors?tenant_id=acme&node=Marie%20Curie');
    expect(neighbors.body.out_edges).toEqual([
      expect.objectContaining({
        target_node_id: 'warsaw',
        relation: 'born_in',
        provenance: 'INFERRED',
        evidence_span: 'She was born in Warsaw in 1867',
        source_doc_id: 'curie.txt',
        segment_id: 'chunk_0',
      }),
    ]);
    const edgeId = neighbors.body.out_edges[0].edge_id;

    const found = await call(rt.url, 'POST', '/search/', {
      query: 'born in Warsaw',
      tenant_id: 'acme',
      profile: 'document_text_semantic',
    });
    const chunk = found.body.results[0].fields;
    expect(chunk.claim_ids).toEqual([edgeId]);
    expect(chunk.relation_ids).toEqual([edgeId]);
    expect(chunk.entity_ids).toEqual(expect.arrayContaining(['marie_curie', 'warsaw']));
  });

  it('keeps the upload indexed when the extractor fails, with no graph and the reason on the job', async () => {
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'down.txt', content: 'Ada Lovelace wrote notes. UNREACHABLE model today.' },
    ]);
    expect(body).toMatchObject({ status: 'complete', documents_fed: 1, graph_nodes: 0, graph_edges: 0 });
    expect(body.claims).toMatch(/^graph extraction failed: .*down\.txt/);
    const found = await call(rt.url, 'POST', '/search/', {
      query: 'Lovelace notes',
      tenant_id: 'acme',
      profile: 'document_text_semantic',
    });
    expect(found.body.results[0].source_doc_id).toBe('down.txt');
  });
});
