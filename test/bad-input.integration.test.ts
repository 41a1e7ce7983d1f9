/**
 * The generated bad-input corpus (test/support/corpus.ts) against one runtime child process: every route
 * of @tessera/api, hundreds of hostile variants of a valid request. No case may answer 5xx or end the
 * process, every 4xx must be an error its route's contract lists, in one of the spec's shapes, and no case
 * may change anything stored (DynamoDB items, S3 objects, queue counts, search-backend files).
 */
import { appendFileSync } from 'node:fs';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { contracts, MediaType } from '@tessera/api';
import { edgeId } from '@tessera/graph';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkAnswer } from './support/contract';
import { type BadRequest, type Baseline, casesOf } from './support/corpus';
import { jobEnded, upload } from './support/ingestion';
import { rawRequest } from './support/raw-http';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';
import { differences, storeReader } from './support/state';

const TENANT = 'acme:prod';
/** A profile of the tenant, created before the corpus runs. */
const PROFILE = {
  profile_name: 'corpus_profile',
  tenant_id: TENANT,
  type: 'document',
  schema_name: 'document_text',
  embedding_model: 'lightonai/GTE-ModernColBERT-v1',
  embedding_type: 'multi_vector',
  model_loader: 'colbert',
};
const MAX_FILE_BYTES = 100_000;
/** A workflow run of TENANT the audit explanation reads. */
const AUDITED_WORKFLOW = 'corpus_workflow';

let rt: RuntimeProcess;
let doneJob: string;
let queuedJob: string;
/** Scheduled jobs of the tenant: one the corpus reads, one it deletes. */
let readJob: string;
let victimJob: string;
/** A harness key of TENANT, and one minted for its revoke route. */
let harnessKey: string;
let revokedKeyId: string;

beforeAll(async () => {
  rt = await spawnRuntime({
    env: { TESSERA_SCHEDULER: 'off', TESSERA_UPLOAD_MAX_BYTES: String(MAX_FILE_BYTES) },
  });
  for (const tenant_id of [TENANT, 'acme:other', 'acme:victim', 'victimorg:t1']) {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id })).status).toBe(201);
  }
  const done = await upload(rt.url, { tenant_id: TENANT, wait: 'true' }, [
    { name: 'keys.md', content: '# Keys\n\nRotate keys every ninety days.\n\nStore them in the vault.' },
  ]);
  expect(done.status).toBe(200);
  doneJob = done.body.job_id;
  await jobEnded(rt.url, doneJob);
  const graph = await call(rt.url, 'POST', '/graph/upsert', {
    tenant_id: TENANT,
    nodes: [{ name: 'alpha' }, { name: 'beta' }],
    edges: [
      {
        source: 'alpha',
        target: 'beta',
        relation: 'calls',
        evidence_span: 'alpha()',
        segment_id: 'function:alpha',
        ts_start: 0,
        ts_end: 0,
        modality: 'code',
      },
    ],
  });
  expect(graph.status).toBe(200);
  // A workflow run of the tenant, for the audit explanation.
  const workflow = await call(rt.url, 'POST', '/agents/search_agent/process', {
    query: 'rotate keys',
    context: { tenant_id: TENANT, workflow_id: AUDITED_WORKFLOW },
  });
  expect(workflow.status).toBe(200);
  const presigned = await call(rt.url, 'POST', '/ingestion/uploads', {
    tenant_id: TENANT,
    filename: 'later.md',
    size: 10,
  });
  expect(presigned.status).toBe(201);
  queuedJob = presigned.body.job_id;
  for (const profile_name of [PROFILE.profile_name, 'corpus_victim']) {
    expect((await call(rt.url, 'POST', '/admin/profiles', { ...PROFILE, profile_name })).status).toBe(201);
  }
  expect((await call(rt.url, 'PUT', '/admin/config/system', {})).status).toBe(200);
  expect((await call(rt.url, 'PUT', `/admin/tenants/${TENANT}/config/llm`, { model: 'm' })).status).toBe(200);
  // The tenant's wiki (deployed by its first save) with a page the corpus reads and one it deletes.
  const saved = await call(rt.url, 'POST', '/wiki/save', {
    tenant_id: TENANT,
    query: 'Where are the keys?',
    response: { answer: 'In the key vault.' },
    entities: ['Key Vault', 'Victim Topic'],
  });
  expect(saved.status).toBe(200);
  const job = { name: 'digest', schedule: 'rate(1 hour)', query: 'rotate keys' };
  const jobIds = await Promise.all(
    ['read', 'victim'].map(async (name) => {
      const created = await call(rt.url, 'POST', `/admin/tenant/${TENANT}/jobs`, { ...job, name });
      expect(created.status).toBe(201);
      return created.body.job_id as string;
    }),
  );
  readJob = jobIds[0]!;
  victimJob = jobIds[1]!;
  // Conversations to read and to delete, and harness keys.
  for (const context_id of ['corpus_thread', 'corpus_victim_thread']) {
    const turn = await call(rt.url, 'POST', '/v1/chat/completions', {
      model: 'tessera/search_agent',
      tenant_id: TENANT,
      metadata: { context_id },
      messages: [{ role: 'user', content: 'rotate keys' }],
    });
    expect(turn.status).toBe(200);
  }
  // Their memories are written off the answer's path: the corpus starts once they are (the memories table
  // is then deployed, and a run the corpus accepts only adds to it).
  await vi.waitFor(
    async () => {
      const listed = await call(rt.url, 'GET', `/admin/tenant/${TENANT}/memories`);
      expect(listed.body.total_count).toBeGreaterThanOrEqual(2);
    },
    { timeout: 30_000, interval: 200 },
  );
  const minted = await call(rt.url, 'POST', '/admin/harness/keys', { tenant_id: TENANT, ttl: 604_800 });
  expect(minted.status).toBe(201);
  harnessKey = minted.body.key;
  const doomed = await call(rt.url, 'POST', '/admin/harness/keys', { tenant_id: TENANT });
  revokedKeyId = doomed.body.key_id;
  const s3 = new S3Client({
    endpoint: rt.emulatorUrl,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await s3.send(
    new PutObjectCommand({
      Bucket: 'tessera-local-uploads',
      Key: `tenants/${TENANT}/placed.md`,
      Body: '# Placed\n\ntext',
    }),
  );
}, 180_000);

afterAll(async () => {
  await rt?.stop();
});

/** An organization id or tenant name by the spec's rule. */
const isName = (value: string) => /^[A-Za-z0-9_]{1,64}$/.test(value) && value !== '__system__';
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;
const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Free text without control characters or unpaired surrogates, as names and source ids are. */
const isText = (max: number) => (value: string) =>
  value.length <= max && !CONTROL.test(value) && !UNPAIRED.test(value);
/** A file name ingestion takes, after dropping empty, `.` and `..` segments (see cleanName). */
const isFileName = (value: string) =>
  isText(1000)(value) && value.split(/[/\\]/).some((segment) => !['', '.', '..'].includes(segment));

/** A valid request of each route, by `group.id`; path values in the order of the route's parameters. */
function baselines(): Record<string, Omit<Baseline, 'path'> & { path?: string[] }> {
  return {
    'health.health': { writes: false },
    'organizations.createOrganization': {
      body: { org_id: 'freshorg', org_name: 'Fresh', created_by: 'corpus' },
      writes: true,
      accepts: { org_id: isName },
    },
    'organizations.listOrganizations': { writes: false },
    'organizations.getOrganization': { path: ['acme'], writes: false },
    'organizations.listOrganizationTenants': { path: ['acme'], writes: false },
    'organizations.deleteOrganization': { path: ['victimorg'], writes: true },
    'tenants.createTenant': {
      body: { tenant_id: 'fresh', org_id: 'acme', created_by: 'corpus', base_schemas: ['document_text'] },
      writes: true,
      accepts: {
        tenant_id: (v) => isName(v) || (v.startsWith('acme:') && isName(v.slice(5))),
        org_id: isName,
      },
    },
    'tenants.getTenant': { path: [TENANT], writes: false },
    'tenants.deleteTenant': { path: ['acme:victim'], writes: true },
    'tenants.setTenantTier': {
      path: [TENANT],
      body: { tier: 'pro' },
      writes: true,
      accepts: { tier: (v) => /^[a-z0-9_-]{1,32}$/.test(v) },
    },
    'tenants.getTenantTier': { path: [TENANT], writes: false },
    'schemas.reconcileOrphans': {
      query: { dry_run: 'true', include_tenant_orphans: 'false' },
      writes: false,
    },
    'schemas.schemaDrift': { writes: false },
    'search.search': {
      body: {
        query: 'rotate keys',
        tenant_id: TENANT,
        profile: 'document_text_semantic',
        strategy: 'hybrid_binary_bm25',
        top_k: 5,
      },
      writes: false,
    },
    'search.profiles': { query: { tenant_id: TENANT }, writes: false },
    'graph.upsert': {
      body: {
        tenant_id: TENANT,
        source_doc_id: 'corpus.md',
        nodes: [
          {
            name: 'Corpus Node',
            description: 'A node of the corpus',
            kind: 'concept',
            label: 'Concept',
            mentions: [
              {
                source_doc_id: 'corpus.md',
                segment_id: 's1',
                ts_start: 0,
                ts_end: 0,
                modality: 'text',
                evidence_span: 'corpus',
              },
            ],
          },
        ],
        edges: [
          {
            source: 'Corpus Node',
            target: 'alpha',
            relation: 'mentions',
            evidence_span: 'corpus',
            segment_id: 's1',
            ts_start: 0,
            ts_end: 0,
            modality: 'text',
            provenance: 'EXTRACTED',
            source_doc_id: 'corpus.md',
            confidence: 1,
          },
        ],
      },
      writes: true,
      accepts: { source_doc_id: isText(1000) },
    },
    'graph.search': { query: { tenant_id: TENANT, q: 'alpha', top_k: '5' }, writes: false },
    'graph.neighbors': { query: { tenant_id: TENANT, node: 'alpha', depth: '2' }, writes: false },
    'graph.path': {
      query: { tenant_id: TENANT, source: 'alpha', target: 'beta', max_depth: '3' },
      writes: false,
    },
    'graph.stats': { query: { tenant_id: TENANT }, writes: false },
    'events.workflowEvents': {
      path: ['workflow_0123456789abcdef'],
      query: { from_offset: '0' },
      writes: false,
    },
    'events.ingestionEvents': { path: [doneJob], query: { from_offset: '0' }, writes: false },
    'ingestion.upload': {
      query: { wait: 'false' },
      form: {
        fields: { tenant_id: TENANT, profile: 'document_text_semantic' },
        files: [{ name: 'corpus.md', content: '# Corpus\n\nSome text.' }],
      },
      writes: true,
      accepts: { filename: isFileName },
    },
    'ingestion.presign': {
      body: {
        tenant_id: TENANT,
        filename: 'big.md',
        size: 1000,
        profile: 'document_text_semantic',
        content_type: 'text/markdown',
      },
      writes: true,
      accepts: { filename: isFileName, content_type: (v) => MediaType.safeParse(v).success },
    },
    'ingestion.start': {
      body: { tenant_id: TENANT, profile: 'document_text_semantic', keys: ['placed.md'] },
      writes: true,
      // A key names the object it cleans to: `./placed.md` is placed.md.
      accepts: {
        keys: (v) =>
          isFileName(v) &&
          v
            .split(/[/\\]/)
            .filter((s) => !['', '.', '..'].includes(s))
            .join('/') === 'placed.md',
      },
    },
    'ingestion.status': { path: [doneJob], writes: false },
    'events.cancelWorkflow': {
      path: ['workflow_0123456789abcdef'],
      body: { reason: 'corpus' },
      writes: true,
    },
    'ingestion.cancel': { path: [queuedJob], body: { reason: 'corpus' }, writes: true },
    'events.queues': { query: { tenant_id: TENANT }, writes: false },
    'events.queueInfo': { path: [doneJob], writes: false },
    'events.queueOffset': { path: [doneJob], writes: false },
    'openapi.openapi': { writes: false },
    'profiles.createProfile': {
      body: { ...PROFILE, profile_name: 'corpus_new' },
      writes: true,
      accepts: { tenant_id: (v) => v === TENANT },
    },
    'profiles.profileTemplates': { query: { tenant_id: TENANT }, writes: false },
    'profiles.listProfiles': { query: { tenant_id: TENANT }, writes: false },
    'profiles.getProfile': { path: [PROFILE.profile_name], query: { tenant_id: TENANT }, writes: false },
    'profiles.updateProfile': {
      path: [PROFILE.profile_name],
      body: { tenant_id: TENANT, description: 'updated by the corpus' },
      writes: true,
      dropsUnknownFields: true,
    },
    'profiles.deleteProfile': {
      path: ['corpus_victim'],
      query: { tenant_id: TENANT, delete_schema: 'false' },
      writes: true,
    },
    'profiles.deployProfile': {
      path: [PROFILE.profile_name],
      body: { tenant_id: TENANT, force: true },
      writes: true,
    },
    'provisioning.provisionTenant': {
      path: [TENANT],
      body: { tier: 'pro', cpu_quota: 2 },
      writes: true,
      accepts: { tier: (v) => /^[a-z0-9_-]{1,32}$/.test(v) },
    },
    'agents.listAgents': { writes: false },
    'agents.agentCard': { path: ['search_agent'], writes: false },
    'agents.agentsByCapability': { path: ['search'], writes: false },
    'agents.processAgent': {
      path: ['search_agent'],
      body: { agent_name: 'search_agent', query: 'rotate keys', context: { tenant_id: TENANT } },
      // The task message keeps keys it does not declare for the agent (document 3).
      dropsUnknownFields: true,
      writes: false,
      remembers: true,
    },
    'memories.listMemories': {
      path: [TENANT],
      query: { agent_name: 'search_agent', limit: '10' },
      writes: false,
    },
    'memories.deleteMemories': { path: [TENANT], query: { agent_name: 'search_agent' }, writes: true },
    'memories.putInstructions': { path: [TENANT], body: { text: 'Answer briefly.' }, writes: true },
    'memories.getInstructions': { path: [TENANT], writes: false },
    'wiki.save': {
      body: {
        tenant_id: TENANT,
        query: 'rotate keys',
        response: { answer: 'Rotate keys every ninety days.' },
        entities: ['Key Vault'],
        agent_name: 'search_agent',
      },
      writes: true,
    },
    'wiki.search': { body: { tenant_id: TENANT, query: 'keys', top_k: 5 }, writes: false },
    'wiki.getTopic': { path: ['key_vault'], query: { tenant_id: TENANT }, writes: false },
    'wiki.deleteTopic': { path: ['victim_topic'], query: { tenant_id: TENANT }, writes: true },
    'wiki.index': { query: { tenant_id: TENANT }, writes: false },
    'wiki.lint': { query: { tenant_id: TENANT }, writes: false },
    'jobs.createJob': {
      path: [TENANT],
      body: {
        name: 'digest',
        schedule: 'rate(1 hour)',
        query: 'rotate keys',
        agent_name: 'search_agent',
        post_actions: [{ type: 'wiki' }],
        timezone: 'UTC',
      },
      writes: true,
    },
    'jobs.listJobs': { path: [TENANT], writes: false },
    'jobs.getJob': { path: [TENANT, readJob], writes: false },
    'jobs.deleteJob': { path: [TENANT, victimJob], writes: true },
    'jobs.listOutbound': { path: [TENANT], writes: false },
    'chat.chatCompletions': {
      body: {
        model: 'tessera/search_agent',
        tenant_id: TENANT,
        stream: false,
        messages: [{ role: 'user', content: 'rotate keys' }],
      },
      // OpenAI's request carries many fields Tessera does not use: they are accepted.
      dropsUnknownFields: true,
      // Without a conversation no turn is stored (only the run's memory).
      writes: false,
      remembers: true,
    },
    'chat.listConversations': { query: { tenant_id: TENANT }, writes: false },
    'chat.getConversation': { path: ['corpus_thread'], query: { tenant_id: TENANT }, writes: false },
    'chat.deleteConversation': {
      path: ['corpus_victim_thread'],
      query: { tenant_id: TENANT },
      writes: true,
    },
    'ag-ui.createHarnessKey': {
      body: { tenant_id: TENANT, ttl: 60 },
      writes: true,
      accepts: { tenant_id: (v) => v === TENANT },
    },
    'ag-ui.revokeHarnessKey': { path: [revokedKeyId], writes: true },
    'ag-ui.agUiRun': {
      path: ['search_agent'],
      headers: { authorization: `Bearer ${harnessKey}` },
      body: {
        // Not a context id (a space): the run is no conversation turn (it stores only its memory).
        threadId: 'corpus thread',
        runId: 'corpus_run',
        messages: [{ id: 'm1', role: 'user', content: 'rotate keys' }],
        tools: [],
        context: [],
        state: {},
      },
      // AG-UI's schema drops fields it does not declare.
      dropsUnknownFields: true,
      writes: false,
      remembers: true,
    },
    'knowledge.traverse': { path: [TENANT], body: { start_subject_key: 'alpha', depth: 2 }, writes: false },
    'knowledge.temporalCompare': { path: [TENANT], body: { subject_key: 'alpha' }, writes: false },
    'knowledge.synthesize': { path: [TENANT], body: { limit: 10 }, writes: false },
    'knowledge.detectContradictions': {
      path: [TENANT],
      body: { subject_key: 'alpha', predicate: 'calls' },
      writes: false,
    },
    'knowledge.summarize': { path: [TENANT], body: { subject_keys: ['alpha', 'beta'] }, writes: false },
    'knowledge.traceCitation': {
      path: [TENANT],
      body: { claim_id: edgeId('alpha', 'calls', 'beta', 'function:alpha', 0, 0) },
      writes: false,
    },
    'knowledge.explainAudit': { path: [TENANT], body: { workflow_id: AUDITED_WORKFLOW }, writes: false },
    'knowledge.compareTenants': {
      path: [TENANT],
      body: { other_tenant_ids: ['acme:other'], query: 'alpha', top_k: 5 },
      writes: false,
    },
    'knowledge.federatedQuery': {
      path: [TENANT],
      body: { tenant_ids: [TENANT, 'acme:other'], query: 'alpha', top_k: 5 },
      writes: false,
    },
    'config.getSystemConfig': { writes: false },
    'config.putSystemConfig': {
      query: { created_by: 'corpus' },
      body: { llm_model: 'corpus-model' },
      writes: true,
      accepts: { created_by: (v) => v.length >= 1 && v.length <= 200 },
    },
    'config.systemConfigHistory': { query: { limit: '10' }, writes: false },
    'config.rollbackSystemConfig': { body: { version: 1, created_by: 'corpus' }, writes: true },
    'config.getTenantConfig': { path: [TENANT, 'llm'], writes: false },
    'config.putTenantConfig': {
      path: [TENANT, 'llm'],
      query: { created_by: 'corpus' },
      body: { model: 'corpus-model' },
      writes: true,
      accepts: { created_by: (v) => v.length >= 1 && v.length <= 200 },
    },
    'config.tenantConfigHistory': { path: [TENANT, 'llm'], query: { limit: '10' }, writes: false },
    'config.rollbackTenantConfig': {
      path: [TENANT, 'llm'],
      body: { version: 1, created_by: 'corpus' },
      writes: true,
    },
  };
}

function corpus(): { cases: BadRequest[]; writes: Set<string>; remembers: Set<string> } {
  const known = baselines();
  const cases: BadRequest[] = [];
  const writes = new Set<string>();
  const remembers = new Set<string>();
  for (const contract of contracts) {
    const baseline = known[`${contract.group}.${contract.id}`];
    if (!baseline) throw new Error(`No baseline for ${contract.group}.${contract.id}: add one`);
    const names = [...contract.route.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const path = Object.fromEntries(names.map((name, i) => [name, baseline.path?.[i] ?? '']));
    if (baseline.writes) writes.add(`${contract.method} ${contract.route}`);
    if (baseline.remembers) remembers.add(`${contract.method} ${contract.route}`);
    cases.push(...casesOf(contract.method, contract.route, { ...baseline, path }, MAX_FILE_BYTES));
  }
  return { cases, writes, remembers };
}

/** A snapshot without the files of the tenants' agent memories tables (what a completed run adds). */
function forgetMemories(state: Record<string, string>): Record<string, string> {
  const backend = (state['search backend'] ?? '').split('\n');
  const kept = backend.filter((line) => !/^agent_memories_[^/]*\.lance\//.test(line));
  return { ...state, 'search backend': kept.join('\n') };
}

const SPEC_SHAPES = [
  (d: unknown) => typeof d === 'string',
  (d: unknown) => Array.isArray(d) && d.every((i) => i && typeof i.type === 'string' && Array.isArray(i.loc)),
  (d: unknown) =>
    typeof d === 'object' &&
    d !== null &&
    typeof (d as { message?: unknown }).message === 'string' &&
    (Array.isArray((d as { errors?: unknown }).errors) ||
      typeof (d as { error?: unknown }).error === 'string'),
];

describe('the bad-input corpus (integration)', () => {
  it('refuses or answers every case with a 4xx in the spec shapes, never a 5xx, and changes nothing', async () => {
    const { cases, writes, remembers } = corpus();
    const reader = storeReader(rt.emulatorUrl!, `${rt.dataDir}/lancedb`);
    let before = await reader.snapshot();
    // The reader sees a quiet store: two snapshots taken apart are equal.
    expect(await reader.snapshot()).toEqual(before);
    const serverErrors: string[] = [];
    const unanswered: string[] = [];
    const offContract: string[] = [];
    const acceptedWrites: string[] = [];
    const stateChanges: string[] = [];
    const byStatus = new Map<number, number>();
    const started = Date.now();
    let routeStart = 0;
    for (const [index, bad] of cases.entries()) {
      const label = `#${index} ${bad.route} ${bad.kind}`;
      if (index > 0 && cases[index - 1]!.route !== bad.route) routeStart = index;
      const answer = await rawRequest(rt.url, bad);
      byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
      const text = answer.body.toString('utf8');
      if (answer.status === 0 || answer.timedOut)
        unanswered.push(`${label}: ${answer.timedOut ? 'timed out' : 'no answer'}`);
      else if (answer.status >= 500) serverErrors.push(`${label}: ${answer.status} ${text.slice(0, 300)}`);
      else if (answer.status >= 400) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          offContract.push(
            `${label}: ${answer.status} answered a body that is not JSON: ${text.slice(0, 200)}`,
          );
        }
        if (body !== undefined) {
          const detail = (body as { detail?: unknown }).detail;
          if (!SPEC_SHAPES.some((shape) => shape(detail)))
            offContract.push(`${label}: ${answer.status} in no spec shape: ${text.slice(0, 200)}`);
          try {
            checkAnswer(bad.method, bad.target, answer.status, body);
          } catch (error) {
            offContract.push(`${label}: ${(error as Error).message.slice(0, 400)}`);
          }
        }
      } else if (writes.has(bad.route) && bad.route.startsWith(bad.method)) {
        acceptedWrites.push(`${label}: ${answer.status} ${text.slice(0, 200)}`);
      }
      if (rt.child.exitCode !== null || rt.child.signalCode !== null) {
        throw new Error(`The runtime exited after ${label}:\n${rt.output().slice(-3000)}`);
      }
      if (process.env.CORPUS_LOG)
        appendFileSync(process.env.CORPUS_LOG, `${Date.now() - started} ${label} ${answer.status}\n`);
      // The stores are read after each case of a route that writes, and after the last case of one that
      // only reads (a change there is counted once, for the route).
      const lastOfRoute = cases[index + 1]?.route !== bad.route;
      if (!writes.has(bad.route) && !lastOfRoute) continue;
      let after = await reader.snapshot();
      if (remembers.has(bad.route)) {
        // The memories of its accepted runs settle first (they are written off the answer's path).
        await new Promise((resolve) => setTimeout(resolve, 200));
        after = await reader.snapshot();
      }
      const changed = remembers.has(bad.route)
        ? differences(forgetMemories(before), forgetMemories(after))
        : differences(before, after);
      if (changed.length > 0) {
        const where = writes.has(bad.route) ? label : `${bad.route} (cases #${routeStart} to #${index})`;
        stateChanges.push(`${where}:\n${changed.join('\n')}`);
        before = after;
      } else if (remembers.has(bad.route)) before = after;
    }
    const statuses = [...byStatus].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
    process.stdout.write(
      `bad-input corpus: ${cases.length} cases over ${contracts.length} routes in ${Math.round((Date.now() - started) / 1000)} s; ` +
        `5xx: ${serverErrors.length}; state changes: ${stateChanges.length}; unanswered: ${unanswered.length}; ` +
        `off-contract 4xx: ${offContract.length}; writes accepted: ${acceptedWrites.length}; ` +
        `by status {${statuses.join(', ')}}\n`,
    );
    const report = (name: string, list: string[]) =>
      list.length ? `${name} (${list.length}):\n${list.slice(0, 40).join('\n')}\n` : '';
    const problems =
      report('5xx', serverErrors) +
      report('unanswered', unanswered) +
      report('off-contract', offContract) +
      report('writes accepted', acceptedWrites) +
      report('state changes', stateChanges);
    expect(problems).toBe('');
    expect(cases.length).toBeGreaterThan(500);
    expect((await call(rt.url, 'GET', '/health')).status).toBe(200);
    // The reader sees what a valid request writes: a refused case that wrote would have been seen.
    expect((await call(rt.url, 'PUT', `/admin/tenants/${TENANT}/tier`, { tier: 'after' })).status).toBe(200);
    expect(differences(before, await reader.snapshot())).toEqual([expect.stringContaining('tenant-tiers')]);
  }, 600_000);
});
