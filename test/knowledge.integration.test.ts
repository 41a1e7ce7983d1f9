/**
 * The knowledge routes through the local runtime: the six graph methods on a claim graph (traverse, temporal
 * compare, synthesis, contradiction detection, summaries, citation tracing), audit explanation of a workflow
 * run, cross-tenant comparison and federated query inside one organization (tenants of look-alike other
 * organizations refused with 403 before anything is read), a tenant without a graph (empty `kg_*` fields,
 * the agent's own memories), the agents on the dispatch path, and bad input (404 unknown keys, 422 depth).
 */
import { edgeId } from '@tessera/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
const TENANT = 'acme:kg';
const SIBLING = 'acme:sib';
const EMPTY = 'acme:empty';
/** Another organization whose id differs from `acme` only by case. */
const LOOKALIKE = 'Acme:kg';

const knowledge = (tenant: string, suffix: string, body: Record<string, unknown>) =>
  call(rt.url, 'POST', `/admin/tenants/${tenant}/knowledge/${suffix}`, body);

const claim = (
  source: string,
  relation: string,
  target: string,
  doc: string,
  segment: string,
  ts: [number, number],
  evidence: string,
) => ({
  source,
  target,
  relation,
  evidence_span: evidence,
  segment_id: segment,
  ts_start: ts[0],
  ts_end: ts[1],
  modality: doc.endsWith('.mp4') ? 'video' : 'text',
  provenance: 'INFERRED',
  source_doc_id: doc,
});

const CLAIMS = [
  claim('Marie Curie', 'born_in', 'Warsaw', 'bio1.md', 's1', [0, 0], 'Marie Curie was born in Warsaw.'),
  claim('Marie Curie', 'discovered', 'Polonium', 'bio1.md', 's2', [5, 6], 'Marie Curie discovered polonium.'),
  claim('Marie Curie', 'born_in', 'Paris', 'bio2.md', 's4', [10, 12], 'Curie, born in Paris, moved.'),
  claim(
    'Marie Curie',
    'discovered',
    'Polonium',
    'video1.mp4',
    'transcript_3',
    [14, 18.5],
    'she found polonium',
  ),
  claim('Marie Curie', 'won', 'Nobel Prize', 'video1.mp4', 'frame_14_0', [14, 14], 'Nobel medal'),
  claim('Marie Curie', 'contradicts', 'Curie Myth', 'bio2.md', 's5', [20, 20], 'Contrary to the myth'),
  claim('Marie Curie', 'worked_at', 'Sorbonne', 'bio1.md', 's3', [7, 8], 'She taught at the Sorbonne.'),
  claim('Pierre Curie', 'worked_at', 'Sorbonne', 'bio1.md', 's3', [7, 8], 'Pierre taught there too.'),
];

const discovered = (segment: string, ts: [number, number]) =>
  edgeId('marie_curie', 'discovered', 'polonium', segment, ts[0], ts[1]);

beforeAll(async () => {
  rt = await spawnRuntime({ env: { TESSERA_SCHEDULER: 'off' } });
  for (const tenant_id of [TENANT, SIBLING, EMPTY, LOOKALIKE, 'a_b:x', 'ab:x']) {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id })).status).toBe(201);
  }
  const upsert = await call(rt.url, 'POST', '/graph/upsert', {
    tenant_id: TENANT,
    nodes: [
      {
        name: 'Marie Curie',
        description: 'Physicist and chemist',
        label: 'Person',
        mentions: [
          {
            source_doc_id: 'video1.mp4',
            segment_id: 'transcript_1',
            ts_start: 2,
            ts_end: 4,
            modality: 'video',
            evidence_span: 'Marie Curie',
          },
        ],
      },
    ],
    edges: CLAIMS,
  });
  expect(upsert.status).toBe(200);
  const sibling = await call(rt.url, 'POST', '/graph/upsert', {
    tenant_id: SIBLING,
    nodes: [{ name: 'Marie Curie', description: 'Sibling notes on Curie' }, { name: 'Radium' }],
  });
  expect(sibling.status).toBe(200);
  const secret = await call(rt.url, 'POST', '/graph/upsert', {
    tenant_id: LOOKALIKE,
    nodes: [{ name: 'Marie Curie', description: 'SECRET of the other organization' }],
  });
  expect(secret.status).toBe(200);
  for (const tenant_id of ['a_b:x', 'ab:x']) {
    const own = await call(rt.url, 'POST', '/graph/upsert', {
      tenant_id,
      nodes: [{ name: 'Marie Curie', description: `notes of ${tenant_id}` }],
    });
    expect(own.status).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  await rt?.stop();
});

describe('knowledge graph methods (integration)', () => {
  it('traverses from a subject to a depth, each node and edge with its hop', async () => {
    const one = await knowledge(TENANT, 'graph/traverse', { start_subject_key: 'Marie Curie', depth: 1 });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      agent: 'kg_traversal_agent',
      tenant_id: TENANT,
      method: 'retrieval',
      graph_bound: true,
      start_node_id: 'marie_curie',
      truncated: false,
    });
    const ids = (body: { nodes: { node_id: string }[] }) => body.nodes.map((n) => n.node_id).sort();
    expect(ids(one.body)).toEqual(
      ['curie_myth', 'marie_curie', 'nobel_prize', 'paris', 'polonium', 'sorbonne', 'warsaw'].sort(),
    );
    expect(one.body.edges).toHaveLength(7);
    expect(one.body.edges.every((e: { hop: number }) => e.hop === 1)).toBe(true);
    const two = await knowledge(TENANT, 'graph/traverse', { start_subject_key: 'marie_curie', depth: 2 });
    expect(ids(two.body)).toContain('pierre_curie');
    expect(two.body.nodes.find((n: { node_id: string }) => n.node_id === 'pierre_curie').hop).toBe(2);
    expect(two.body.edges).toHaveLength(8);
  });

  it('orders a subject’s relations by ts_start, then its end and source', async () => {
    const answer = await knowledge(TENANT, 'temporal/compare', { subject_key: 'Marie Curie' });
    expect(answer.status).toBe(200);
    expect(answer.body.subject).toBe('marie_curie');
    expect(
      answer.body.kg_timeline.map((e: { relation: string; target: string; ts_start: number }) => [
        e.relation,
        e.target,
        e.ts_start,
      ]),
    ).toEqual([
      ['born_in', 'warsaw', 0],
      ['discovered', 'polonium', 5],
      ['worked_at', 'sorbonne', 7],
      ['born_in', 'paris', 10],
      ['won', 'nobel_prize', 14],
      ['discovered', 'polonium', 14],
      ['contradicts', 'curie_myth', 20],
    ]);
    expect(answer.body.kg_timeline[0]).toEqual({
      edge_id: edgeId('marie_curie', 'born_in', 'warsaw', 's1', 0, 0),
      relation: 'born_in',
      target: 'warsaw',
      ts_start: 0,
      ts_end: 0,
      source_doc_id: 'bio1.md',
    });
  });

  it('groups every claim by subject and predicate, those of most documents first', async () => {
    const answer = await knowledge(TENANT, 'synthesis/synthesize', {});
    expect(answer.status).toBe(200);
    const groups = answer.body.kg_claim_groups as { subject: string; predicate: string; claims: unknown[] }[];
    expect(answer.body.total_groups).toBe(6);
    expect(
      groups
        .slice(0, 2)
        .map((g) => `${g.subject} ${g.predicate} ${g.claims.length}`)
        .sort(),
    ).toEqual(['marie_curie born_in 2', 'marie_curie discovered 2']);
    const found = groups.find((g) => g.predicate === 'discovered')!;
    expect(found.claims[0]).toMatchObject({
      object: 'polonium',
      source_doc_id: 'bio1.md',
      evidence_span: 'Marie Curie discovered polonium.',
    });
    const limited = await knowledge(TENANT, 'synthesis/synthesize', { limit: 1 });
    expect(limited.body.kg_claim_groups).toHaveLength(1);
  });

  it('detects differing objects of one subject and predicate, and contradicts edges', async () => {
    const all = await knowledge(TENANT, 'contradictions/detect', { subject_key: 'Marie Curie' });
    expect(all.status).toBe(200);
    const entries = all.body.kg_conflict_entries as {
      predicate: string;
      objects: string[];
      edges: unknown[];
    }[];
    expect(entries.map((e) => [e.predicate, e.objects])).toEqual([
      ['born_in', ['paris', 'warsaw']],
      ['contradicts', ['curie_myth']],
    ]);
    expect(entries[0]!.edges).toEqual([
      expect.objectContaining({ target: 'warsaw', source_doc_id: 'bio1.md', segment_id: 's1' }),
      expect.objectContaining({ target: 'paris', source_doc_id: 'bio2.md', segment_id: 's4' }),
    ]);
    const one = await knowledge(TENANT, 'contradictions/detect', {
      subject_key: 'Marie Curie',
      predicate: 'discovered',
    });
    // One object in two documents is no conflict.
    expect(one.body.kg_conflict_entries).toEqual([]);
  });

  it('summarizes the subjects per source with their claims and time span', async () => {
    const answer = await knowledge(TENANT, 'summaries/summarize', { subject_keys: ['Marie Curie'] });
    expect(answer.status).toBe(200);
    const summaries = answer.body.kg_video_summaries as {
      source_doc_id: string;
      claims: { predicate: string }[];
      span: unknown;
    }[];
    expect(summaries.map((s) => s.source_doc_id)).toEqual(['bio1.md', 'bio2.md', 'video1.mp4']);
    const video = summaries[2]!;
    expect(video).toMatchObject({ subjects: ['marie_curie'], span: { ts_start: 2, ts_end: 18.5 } });
    expect(video.claims.map((c) => c.predicate)).toEqual(['won', 'discovered']);
  });

  it('traces a claim to its verbatim evidence and segment, then the same claim elsewhere', async () => {
    const id = discovered('s2', [5, 6]);
    const answer = await knowledge(TENANT, 'citations/trace', { claim_id: id });
    expect(answer.status).toBe(200);
    expect(answer.body.claim).toMatchObject({ edge_id: id, subject: 'marie_curie', object: 'polonium' });
    expect(answer.body.kg_primary_sources).toEqual([
      {
        edge_id: id,
        source_doc_id: 'bio1.md',
        segment_id: 's2',
        evidence_span: 'Marie Curie discovered polonium.',
        ts_start: 5,
        ts_end: 6,
        modality: 'text',
      },
      {
        edge_id: discovered('transcript_3', [14, 18.5]),
        source_doc_id: 'video1.mp4',
        segment_id: 'transcript_3',
        evidence_span: 'she found polonium',
        ts_start: 14,
        ts_end: 18.5,
        modality: 'video',
      },
    ]);
  });

  it('answers 404 naming unknown subjects and claims, and 422 for a depth out of range', async () => {
    const node = await knowledge(TENANT, 'graph/traverse', { start_subject_key: 'Nobody', depth: 1 });
    expect(node.status).toBe(404);
    expect(node.body).toEqual({ detail: "Node 'Nobody' not found" });
    for (const suffix of ['temporal/compare', 'contradictions/detect']) {
      const answer = await knowledge(TENANT, suffix, { subject_key: 'Ghost' });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ detail: "Node 'Ghost' not found" });
    }
    const several = await knowledge(TENANT, 'summaries/summarize', {
      subject_keys: ['Marie Curie', 'Nobody', 'Ghost'],
    });
    expect(several.status).toBe(404);
    expect(several.body).toEqual({ detail: "Nodes 'Nobody', 'Ghost' not found" });
    const missing = await knowledge(TENANT, 'citations/trace', { claim_id: '0123456789abcdef' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: "Claim '0123456789abcdef' not found" });
    for (const depth of [0, 4, 1.5]) {
      const answer = await knowledge(TENANT, 'graph/traverse', { start_subject_key: 'Marie Curie', depth });
      expect(answer.status).toBe(422);
      expect(answer.body.detail[0].loc).toEqual(['body', 'depth']);
    }
    const unregistered = await knowledge('acme:nobody', 'graph/traverse', { start_subject_key: 'x' });
    expect(unregistered.status).toBe(404);
    expect(unregistered.body).toEqual({ detail: "Tenant 'acme:nobody' not registered." });
  });
});

describe('a tenant without a graph (integration)', () => {
  it('answers every graph method with empty kg fields, not 404, and the agent’s own memories', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['graph/traverse', { start_subject_key: 'Marie Curie', depth: 2 }, 'nodes'],
      ['temporal/compare', { subject_key: 'Marie Curie' }, 'kg_timeline'],
      ['synthesis/synthesize', {}, 'kg_claim_groups'],
      ['contradictions/detect', { subject_key: 'Marie Curie' }, 'kg_conflict_entries'],
      ['summaries/summarize', { subject_keys: ['Marie Curie'] }, 'kg_video_summaries'],
      ['citations/trace', { claim_id: '0123456789abcdef' }, 'kg_primary_sources'],
    ];
    for (const [suffix, body, field] of cases) {
      const answer = await knowledge(EMPTY, suffix, body);
      expect(answer.status, suffix).toBe(200);
      expect(answer.body.graph_bound, suffix).toBe(false);
      expect(answer.body[field], suffix).toEqual([]);
      expect(answer.body.memories, suffix).toEqual([]);
    }
  });

  it('runs on the dispatch path once enabled, binding the graph, and recalls what its runs left', async () => {
    const disabled = await call(rt.url, 'POST', '/agents/kg_traversal_agent/process', {
      query: 'Marie Curie',
      context: { tenant_id: TENANT },
    });
    // Disabled by default on the dispatch path; the knowledge routes bind it whatever that says.
    expect(disabled.status).toBe(409);
    expect(
      (
        await call(rt.url, 'PUT', '/admin/config/system', {
          agents: { kg_traversal_agent: { enabled: true }, citation_tracing_agent: { enabled: true } },
        })
      ).status,
    ).toBe(200);
    try {
      const run = await call(rt.url, 'POST', '/agents/kg_traversal_agent/process', {
        query: 'Marie Curie',
        context: { tenant_id: TENANT, depth: 1 },
      });
      expect(run.status).toBe(200);
      expect(run.body.result).toMatchObject({ start_node_id: 'marie_curie', graph_bound: true });
      expect(run.body.result.edges).toHaveLength(7);
      // A step that asks in words: the subject is the node its words match best (BM25 over names and descriptions).
      const worded = await call(rt.url, 'POST', '/agents/kg_traversal_agent/process', {
        query: 'Who was Marie Curie?',
        context: { tenant_id: TENANT, depth: 1 },
      });
      expect(worded.body.result.start_node_id).toBe('marie_curie');
      const naming = await call(rt.url, 'POST', '/agents/kg_traversal_agent/process', {
        query: 'zzyzx qqq',
        context: { tenant_id: TENANT },
      });
      expect(naming.status).toBe(404);
      expect(naming.body).toEqual({ detail: "Node 'zzyzx qqq' not found" });
      const bad = await call(rt.url, 'POST', '/agents/kg_traversal_agent/process', {
        query: 'Marie Curie',
        context: { tenant_id: TENANT, depth: 9 },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'context', 'depth']);
      const unknownClaim = await call(rt.url, 'POST', '/agents/citation_tracing_agent/process', {
        query: 'ffffffffffffffff',
        context: { tenant_id: TENANT },
      });
      expect(unknownClaim.status).toBe(404);
      expect(unknownClaim.body).toEqual({ detail: "Claim 'ffffffffffffffff' not found" });

      // A run for the tenant without a graph leaves a memory, which the route recalls.
      const empty = await call(rt.url, 'POST', '/agents/kg_traversal_agent/process', {
        query: 'Marie Curie',
        context: { tenant_id: EMPTY },
      });
      expect(empty.body.result).toMatchObject({ graph_bound: false, nodes: [] });
      let recalled: { content: string }[] = [];
      for (let i = 0; i < 100 && recalled.length === 0; i++) {
        recalled = (await knowledge(EMPTY, 'graph/traverse', { start_subject_key: 'Marie Curie' })).body
          .memories;
        if (recalled.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(recalled[0]!.content).toContain('Marie Curie');
    } finally {
      await call(rt.url, 'PUT', '/admin/config/system', {});
    }
  });
});

describe('audit explanation (integration)', () => {
  it('explains a workflow run from its events, and only to its own tenant', async () => {
    const workflow_id = `wf_audit_${Date.now()}`;
    const run = await call(rt.url, 'POST', '/agents/text_analysis_agent/process', {
      query: 'Marie Curie discovered polonium in Paris.',
      context: { tenant_id: TENANT, workflow_id },
    });
    expect(run.status).toBe(200);
    const answer = await knowledge(TENANT, 'audit/explain', { workflow_id });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      agent: 'audit_explanation_agent',
      workflow_id,
      workflow_agent: 'text_analysis_agent',
      status: 'completed',
      plan: null,
      sources: [],
    });
    const steps = answer.body.steps as { type: string; phase: string | null; offset: number }[];
    expect(steps[0]).toMatchObject({ type: 'status', phase: 'started', offset: 0 });
    expect(steps.at(-1)!.type).toBe('complete');
    expect(answer.body.event_count).toBe(steps.length);
    expect(answer.body.timings.ended_at).not.toBeNull();
    expect(answer.body.timings.phases[0].phase).toBe('started');
    const other = await knowledge(SIBLING, 'audit/explain', { workflow_id });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ detail: `Workflow '${workflow_id}' not found` });
  });
});

describe('cross-tenant work inside an organization (integration)', () => {
  it('compares the caller with named tenants of its organization, each labelled', async () => {
    const answer = await knowledge(TENANT, 'cross_tenant/compare', {
      other_tenant_ids: [SIBLING],
      query: 'Marie Curie',
      top_k: 5,
    });
    expect(answer.status).toBe(200);
    const tenants = answer.body.tenants as { tenant_id: string; nodes: { tenant_id: string }[] }[];
    expect(tenants.map((t) => t.tenant_id)).toEqual([TENANT, SIBLING]);
    for (const t of tenants) expect(t.nodes.every((n) => n.tenant_id === t.tenant_id)).toBe(true);
    expect(answer.body.shared_node_ids).toContain('marie_curie');
    expect(JSON.stringify(answer.body)).not.toContain('SECRET');
  });

  it('runs a federated query over the named tenants only, each hit labelled', async () => {
    const answer = await knowledge(TENANT, 'federated/query', {
      tenant_ids: [TENANT, SIBLING, EMPTY],
      query: 'Marie Curie',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.tenants).toEqual([
      { tenant_id: TENANT, graph_bound: true, count: expect.any(Number) },
      { tenant_id: SIBLING, graph_bound: true, count: expect.any(Number) },
      { tenant_id: EMPTY, graph_bound: false, count: 0 },
    ]);
    const labels = new Set(answer.body.results.map((hit: { tenant_id: string }) => hit.tenant_id));
    expect([...labels].sort()).toEqual([TENANT, SIBLING].sort());
    expect(JSON.stringify(answer.body)).not.toContain('SECRET');
    const siblingOnly = await knowledge(TENANT, 'federated/query', {
      tenant_ids: [SIBLING],
      query: 'Radium',
    });
    expect(siblingOnly.body.results[0]).toMatchObject({ tenant_id: SIBLING, node_id: 'radium' });
  });

  it('refuses tenants of other organizations with 403, look-alike ids included, before any read', async () => {
    const refusals: [string, Record<string, unknown>, string, string][] = [
      [TENANT, { other_tenant_ids: [LOOKALIKE], query: 'Marie Curie' }, LOOKALIKE, 'acme'],
      // Refused whatever else the request names, and whether or not the tenant exists.
      [TENANT, { other_tenant_ids: [SIBLING, 'Acme:nobody'], query: 'x' }, 'Acme:nobody', 'acme'],
      [TENANT, { other_tenant_ids: ['ACME:kg'], query: 'x' }, 'ACME:kg', 'acme'],
      ['a_b:x', { other_tenant_ids: ['ab:x'], query: 'Marie Curie' }, 'ab:x', 'a_b'],
      ['ab:x', { other_tenant_ids: ['a_b:x'], query: 'Marie Curie' }, 'a_b:x', 'ab'],
      // A bare id is its own organization's.
      [TENANT, { other_tenant_ids: ['acme_kg'], query: 'x' }, 'acme_kg', 'acme'],
    ];
    for (const [caller, body, named, org] of refusals) {
      const detail = `Tenant '${named}' is not in organization '${org}'`;
      const compared = await knowledge(caller, 'cross_tenant/compare', body);
      expect(compared.status, named).toBe(403);
      expect(compared.body).toEqual({ detail });
      const federated = await knowledge(caller, 'federated/query', {
        tenant_ids: body.other_tenant_ids,
        query: body.query,
      });
      expect(federated.status, named).toBe(403);
      expect(federated.body).toEqual({ detail });
    }
    // Inside the organization an id differing by case is another tenant: not registered.
    const unregistered = await knowledge(TENANT, 'federated/query', { tenant_ids: ['acme:KG'], query: 'x' });
    expect(unregistered.status).toBe(404);
    expect(unregistered.body).toEqual({ detail: "Tenant 'acme:KG' not registered." });
    const own = await knowledge('a_b:x', 'federated/query', { tenant_ids: ['a_b:x'], query: 'Marie Curie' });
    expect(own.status).toBe(200);
    expect(own.body.results[0]).toMatchObject({ tenant_id: 'a_b:x', description: 'notes of a_b:x' });
  });
});
