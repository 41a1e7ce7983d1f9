/**
 * What each handler module may use: the tables, buckets and queues of the shared resource definition, each
 * with the least access its code needs. A function gets only its module's grants and only those resources'
 * names in its environment. `referencedStores` finds what a module's bundle reaches (`tables.x`,
 * `buckets.x`, `queues.x` in the sources it inlines; the search bucket through LanceDB), and the Functions
 * construct refuses to create a function whose module reaches a store it has no grant for, or holds a grant
 * for a store it never reaches.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buckets, queues, tables } from '@tessera/platform/resources';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { functionsDir, type HandlerBundle } from './bundle';

export type TableKey = keyof typeof tables;
export type BucketKey = keyof typeof buckets;
export type QueueKey = keyof typeof queues;

export type DataAccess = 'read' | 'readWrite';

/**
 * What stores are bound to: a principal to grant and an environment to name the stores in (a function, or
 * the media worker's task role and container).
 */
export interface Binding extends iam.IGrantable {
  addEnvironment(name: string, value: string): unknown;
}
/** `describe` reads the queue's URL and attributes (the health probe); `send` also sends. */
export type QueueAccess = 'describe' | 'send';

export interface StoreGrants {
  tables?: Partial<Record<TableKey, DataAccess>>;
  buckets?: Partial<Record<BucketKey, DataAccess>>;
  queues?: Partial<Record<QueueKey, QueueAccess>>;
}

/** Reading tenants: their records, tiers and schema rows. */
const TENANCY_READ = {
  organizations: 'read',
  tenants: 'read',
  tenantTiers: 'read',
  schemaRegistry: 'read',
  schemaSuffixes: 'read',
} as const satisfies StoreGrants['tables'];

/** Every traced route reads its tenant's telemetry record (and the system configuration's collector). */
const TRACED = { configRecords: 'read' } as const satisfies StoreGrants['tables'];

/** Administering tenants: their records, schema-name claims and search tables. */
const TENANCY_ADMIN = {
  tables: {
    organizations: 'readWrite',
    tenants: 'readWrite',
    tenantTiers: 'readWrite',
    schemaRegistry: 'readWrite',
    schemaSuffixes: 'readWrite',
  },
  buckets: { search: 'readWrite' },
} as const satisfies StoreGrants;

/**
 * Removing tenants: besides their records and tables, the data every store owns of them
 * (functions/tenant-data.ts): ingestion jobs, source hashes, slots and uploads, task events, profiles,
 * configuration records, provisioning records, agent memories and instructions.
 */
const TENANT_REMOVAL: StoreGrants = {
  tables: {
    ...TENANCY_ADMIN.tables,
    taskQueues: 'readWrite',
    taskEvents: 'readWrite',
    ingestionJobs: 'readWrite',
    ingestionSources: 'readWrite',
    ingestionSlots: 'readWrite',
    profiles: 'readWrite',
    configRecords: 'readWrite',
    provisioning: 'readWrite',
    instructions: 'readWrite',
    wikiLocks: 'readWrite',
    jobs: 'readWrite',
    outboundMessages: 'readWrite',
    conversations: 'readWrite',
    harnessKeys: 'readWrite',
    messaging: 'readWrite',
  },
  buckets: { search: 'readWrite', uploads: 'readWrite' },
};

/**
 * What an agent's run reaches: the tenant's content and its own profiles, the system configuration (agent
 * overrides) and the tenant's routing and LLM records, workflow runs reported, the tenant's instructions
 * read, and the memory and wiki writes (the tenant's schemas deployed, page locks) its code holds.
 */
const AGENT_REACH = {
  ...TENANCY_READ,
  tenants: 'readWrite',
  schemaRegistry: 'readWrite',
  taskQueues: 'readWrite',
  taskEvents: 'readWrite',
  profiles: 'read',
  configRecords: 'read',
  instructions: 'read',
  wikiLocks: 'readWrite',
} as const satisfies StoreGrants['tables'];

/** Running scheduled jobs: what the agents reach, the wiki's writes, the job and outbound stores. */
const JOB_RUNS: StoreGrants = {
  tables: { ...AGENT_REACH, jobs: 'readWrite', outboundMessages: 'readWrite' },
  buckets: { search: 'readWrite' },
  // The agents' wiring, which a job's run goes through, names the completed-run queue; a job's run
  // (runAgentTask) queues nothing.
  queues: { agentRuns: 'describe' },
};

/**
 * Running agents (the agents' routes, chat, AG-UI): what the agents reach, each completed run queued for
 * its memory and wiki filing (which the agent-runs worker writes), and conversations kept (a dispatch naming
 * `context.context_id`; the chat wiring also builds the harness key store).
 */
const AGENT_RUNS = {
  tables: { ...AGENT_REACH, conversations: 'readWrite', harnessKeys: 'read' },
  buckets: { search: 'readWrite' },
  queues: { agentRuns: 'send' },
} as const satisfies StoreGrants;

/**
 * Grants by handler module (`http/tenants`), from what each one's code does with the stores it reaches.
 * Consuming a queue is granted by the worker's event source, not here.
 */
export const MODULE_GRANTS: Record<string, StoreGrants> = {
  'http/fallback': {},
  // The OpenAPI document, built from the route schemas alone.
  'http/openapi': {},
  // DescribeTable, HeadBucket and GetQueueUrl probe the services; the search backend lists its tables. The
  // other tables are reached through the tenancy wiring the probe of the search backend comes with.
  'http/health': {
    tables: { ...TENANCY_READ, ...TRACED },
    buckets: { uploads: 'read', search: 'read' },
    queues: { ingestion: 'describe' },
  },
  // Create and delete organizations and tenants: their records, tiers, schema rows, name claims and search
  // tables, and everything of a deleted tenant in the other stores.
  'http/organizations': { ...TENANT_REMOVAL },
  'http/tenants': { ...TENANT_REMOVAL },
  // Configuration records are written and read; the tenant guard reads tenants.
  'http/config': {
    tables: { ...TENANCY_READ, configRecords: 'readWrite' },
    buckets: { search: 'read' },
  },
  // Profiles are written; their deploy and delete register, create and drop the tenant's schemas.
  'http/profiles': {
    tables: {
      ...TENANCY_READ,
      tenants: 'readWrite',
      schemaRegistry: 'readWrite',
      profiles: 'readWrite',
    },
    buckets: { search: 'readWrite' },
  },
  // Orphan reconciliation drops search tables and registry rows.
  'http/schemas': { ...TENANCY_ADMIN, tables: { ...TENANCY_ADMIN.tables, ...TRACED } },
  // A tenant's own profiles are searched as the shipped ones.
  'http/search': {
    tables: { ...TENANCY_READ, ...TRACED, profiles: 'read' },
    buckets: { search: 'read' },
  },
  // Agents run; a completed run is queued for its memory and wiki filing (see AGENT_RUNS).
  'http/agents': AGENT_RUNS,
  // The knowledge agents read the tenant's graph and memories, the named tenants of its organization, the
  // system configuration (the registry) and a workflow's task events. The bundle holds the agents' code (runs
  // leaving memories and wiki pages, workflow reporting, the completed-run queue's name), which these routes
  // do not run.
  'http/knowledge': {
    tables: { ...AGENT_REACH },
    buckets: { search: 'readWrite' },
    queues: { agentRuns: 'describe' },
  },
  // Memories are listed and deleted in the tenant's memory table; instructions are written and read.
  'http/memories': {
    tables: { ...TENANCY_READ, ...TRACED, instructions: 'readWrite' },
    buckets: { search: 'readWrite' },
  },
  // Jobs are written and read; creating one checks its agent in the registry (the system configuration). The
  // bundle holds the runs' code (agents, wiki), which these routes do not run.
  'http/jobs': { ...JOB_RUNS },
  // A job's run: the job's lease and last run, the agent's run reported on its workflow task, the answer
  // saved to the wiki or queued for the tenant's chats.
  'workers/jobs': { ...JOB_RUNS },
  // Chat runs agents as the agents' routes do and keeps the conversations.
  'http/chat': AGENT_RUNS,
  // AG-UI runs agents for the tenant of a harness key and keeps the thread's conversation; keys are minted
  // and revoked here.
  'http/ag-ui': { ...AGENT_RUNS, tables: { ...AGENT_RUNS.tables, harnessKeys: 'readWrite' } },
  // Invites, registrations (claim, map, consume) and the drain's takes are writes; every route but resolve and
  // drain guards its tenant.
  'http/messaging': {
    tables: { ...TENANCY_READ, ...TRACED, messaging: 'readWrite', outboundMessages: 'readWrite' },
    buckets: { search: 'read' },
  },
  // The Telegram webhook records each update id (the worker calls the runtime's API over HTTP only).
  'workers/telegram': { tables: { messaging: 'readWrite' } },
  // Upserts write the tenant's graph tables.
  'http/graph': {
    tables: { ...TENANCY_READ, ...TRACED },
    buckets: { search: 'readWrite' },
  },
  // Wiki pages are written in the tenant's wiki table (deployed on the first save or search: its schema row and
  // the tenant record's deployed bases), each under its page lock.
  'http/wiki': {
    tables: {
      ...TENANCY_READ,
      ...TRACED,
      tenants: 'readWrite',
      schemaRegistry: 'readWrite',
      wikiLocks: 'readWrite',
    },
    buckets: { search: 'readWrite' },
  },
  // Streams read a task's events; cancel writes the task.
  'http/events': {
    tables: { ...TENANCY_READ, ...TRACED, taskQueues: 'readWrite', taskEvents: 'readWrite' },
    buckets: { search: 'read' },
  },
  // Uploads are stored and queued as jobs; runs list the bucket; a job's status and cancel. The worker's
  // code is in the bundle too (source hashes, slots) but these routes only read through it.
  'http/ingestion': {
    tables: {
      ...TENANCY_READ,
      taskQueues: 'readWrite',
      taskEvents: 'readWrite',
      ingestionJobs: 'readWrite',
      ingestionSources: 'read',
      ingestionSlots: 'read',
      profiles: 'read',
      configRecords: 'read',
      // The storage quota provisioning set: an upload's bytes are counted against it.
      provisioning: 'readWrite',
    },
    buckets: { uploads: 'readWrite', search: 'read' },
    queues: { ingestion: 'send' },
  },
  // The agent-runs worker: a completed run's memory (the tenant's memory schema deployed on its first: a
  // registry row, the tenant record) and its wiki filing (the wiki schema likewise, each page under its lock).
  // The memories' wiring also builds the instructions store, which the worker never writes.
  'workers/agent-runs': {
    tables: {
      ...TENANCY_READ,
      tenants: 'readWrite',
      schemaRegistry: 'readWrite',
      instructions: 'read',
      wikiLocks: 'readWrite',
    },
    buckets: { search: 'readWrite' },
  },
  // Tenant recovery (a removal), schema migration and the task event sweep.
  'workers/maintenance': { ...TENANT_REMOVAL },
  // Starts provisioning: its execution record and workflow task; the state machine runs the steps (the
  // bundle holds their code, which the route does not run when the state machine is set).
  'http/provisioning': {
    tables: {
      ...TENANCY_READ,
      ...TRACED,
      taskQueues: 'readWrite',
      taskEvents: 'readWrite',
      profiles: 'read',
      provisioning: 'readWrite',
      messaging: 'read',
      outboundMessages: 'readWrite',
    },
    buckets: { uploads: 'read', search: 'read' },
  },
  // The provisioning steps: schemas deployed and verified, tier, namespace, quota and claim records, probes
  // written, read and deleted under the tenant's prefix, each step reported on the workflow task.
  'workers/provisioning': {
    tables: {
      ...TENANCY_ADMIN.tables,
      ...TRACED,
      taskQueues: 'readWrite',
      taskEvents: 'readWrite',
      profiles: 'read',
      provisioning: 'readWrite',
      // The notify step queues its message for the tenant's linked chats, when it has any.
      messaging: 'read',
      outboundMessages: 'readWrite',
    },
    buckets: { uploads: 'readWrite', search: 'readWrite' },
  },
  // The ingestion worker indexes into the search backend, keeps jobs, source hashes and slots, and writes
  // pipeline artifacts beside the uploads; job recovery queues idle jobs again.
  'workers/ingestion': {
    tables: {
      ...TENANCY_READ,
      taskQueues: 'readWrite',
      taskEvents: 'readWrite',
      ingestionJobs: 'readWrite',
      ingestionSources: 'readWrite',
      ingestionSlots: 'readWrite',
      // The tenant's profiles route its files; its LLM endpoint (configuration records, tier) its claims.
      profiles: 'read',
      configRecords: 'read',
      // The tenant's cpu_quota, when provisioning set one, is its number of slots.
      provisioning: 'read',
    },
    buckets: { uploads: 'readWrite', search: 'readWrite' },
    queues: { ingestion: 'send' },
  },
};

const repoRoot = path.dirname(functionsDir);
const sourceTexts = new Map<string, string>();

function sourceText(input: string): string {
  let text = sourceTexts.get(input);
  if (text === undefined) {
    text = readFileSync(path.resolve(repoRoot, input), 'utf8');
    sourceTexts.set(input, text);
  }
  return text;
}

/** The repository's own source files a bundle inlines (not its packages from the registry). */
export function ownSources(bundle: HandlerBundle): string[] {
  return bundle.inputs.filter((input) => !input.split(/[\\/]/).includes('node_modules'));
}

/**
 * True when the bundle reads the variable: one of its env.ts files names it (only env.ts files read the
 * environment, a rule Biome holds).
 */
export function bundleReads(bundle: HandlerBundle, variable: string): boolean {
  return ownSources(bundle).some(
    (input) => path.basename(input) === 'env.ts' && new RegExp(`\\b${variable}\\b`).test(sourceText(input)),
  );
}

export interface ReferencedStores {
  tables: Set<TableKey>;
  buckets: Set<BucketKey>;
  queues: Set<QueueKey>;
}

/** The stores a bundle's code reaches: by the resource definitions it names, and LanceDB's bucket. */
export function referencedStores(bundle: HandlerBundle): ReferencedStores {
  const found: ReferencedStores = { tables: new Set(), buckets: new Set(), queues: new Set() };
  const definitions = { tables, buckets, queues };
  for (const input of ownSources(bundle)) {
    if (input.replaceAll('\\', '/').endsWith('platform/src/resources.ts')) continue;
    for (const match of sourceText(input).matchAll(/\b(tables|buckets|queues)\.([A-Za-z]\w*)\b/g)) {
      const kind = match[1] as keyof ReferencedStores;
      const key = match[2]!;
      if (key in definitions[kind]) (found[kind] as Set<string>).add(key);
    }
  }
  if (bundle.usesSearchLayer) found.buckets.add('search');
  return found;
}

/** What `grants` lacks of `referenced` and what it holds beyond it, as `tables.x` lines. */
export function grantMismatches(
  referenced: ReferencedStores,
  grants: StoreGrants,
): { missing: string[]; unused: string[] } {
  const missing: string[] = [];
  const unused: string[] = [];
  for (const kind of ['tables', 'buckets', 'queues'] as const) {
    const granted = new Set(Object.keys(grants[kind] ?? {}));
    for (const key of referenced[kind]) if (!granted.has(key)) missing.push(`${kind}.${key}`);
    for (const key of granted) if (!referenced[kind].has(key as never)) unused.push(`${kind}.${key}`);
  }
  return { missing, unused };
}
