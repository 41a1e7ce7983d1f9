/**
 * The one definition of Tessera's AWS resources. The stacks create them in AWS and the local runtime
 * creates them in the emulators from this same list.
 */

export interface TableDef {
  name: string;
  envVar: string;
  partitionKey: string;
  sortKey?: string;
  /** Attribute holding an epoch-seconds expiry (DynamoDB TTL; readers also filter expired items). */
  ttlAttribute?: string;
}

export interface QueueDef {
  name: string;
  envVar: string;
  /**
   * How long a received message stays hidden. Lambda refuses an event source mapping whose queue hides
   * messages for less than its function's timeout, and AWS advises six times the timeout, so that a batch
   * retried after throttling is not delivered again while it runs; the stack tests hold every queue to that.
   */
  visibilityTimeoutSeconds: number;
  deadLetter?: { name: string; envVar: string; maxReceiveCount: number; visibilityTimeoutSeconds: number };
}

export interface BucketDef {
  name: string;
  envVar: string;
  /** Cross-origin rules, for a bucket that browsers write to directly (presigned uploads from the web client). */
  cors?: {
    allowedMethods: ('GET' | 'PUT' | 'POST' | 'HEAD')[];
    allowedOrigins: string[];
    exposedHeaders: string[];
  };
}

export const tables = {
  organizations: { name: 'organizations', envVar: 'TESSERA_TABLE_ORGANIZATIONS', partitionKey: 'org_id' },
  tenants: {
    name: 'tenants',
    envVar: 'TESSERA_TABLE_TENANTS',
    partitionKey: 'org_id',
    sortKey: 'tenant_name',
  },
  tenantTiers: { name: 'tenant-tiers', envVar: 'TESSERA_TABLE_TENANT_TIERS', partitionKey: 'tenant_full_id' },
  schemaRegistry: {
    name: 'schema-registry',
    envVar: 'TESSERA_TABLE_SCHEMA_REGISTRY',
    partitionKey: 'tenant_full_id',
    sortKey: 'schema_name',
  },
  /**
   * Which tenant holds each schema suffix `<org>_<tenant>` (`a:b_c` and `a_b:c` share `a_b_c`): one claim
   * row a suffix, written conditionally at a tenant's create and removed by its delete.
   */
  schemaSuffixes: {
    name: 'schema-suffixes',
    envVar: 'TESSERA_TABLE_SCHEMA_SUFFIXES',
    partitionKey: 'schema_suffix',
  },
  /** One row a task: kind, tenant, offsets, lease, cancellation and subscribers. */
  taskQueues: {
    name: 'task-queues',
    envVar: 'TESSERA_TABLE_TASK_QUEUES',
    partitionKey: 'task_id',
    ttlAttribute: 'expires_at',
  },
  /** One row an event, keyed by the task and its zero-padded offset. */
  taskEvents: {
    name: 'task-events',
    envVar: 'TESSERA_TABLE_TASK_EVENTS',
    partitionKey: 'task_id',
    sortKey: 'offset_key',
    ttlAttribute: 'expires_at',
  },
  /** One row an ingestion job: its tenant, files, state, deliveries and result. */
  ingestionJobs: { name: 'ingestion-jobs', envVar: 'TESSERA_TABLE_INGESTION_JOBS', partitionKey: 'job_id' },
  /** What each source of a tenant's profile was last ingested from (content hash), so re-uploads skip. */
  ingestionSources: {
    name: 'ingestion-sources',
    envVar: 'TESSERA_TABLE_INGESTION_SOURCES',
    partitionKey: 'tenant_profile',
    sortKey: 'source_doc_id',
  },
  /** A tenant's running ingestion jobs, bounded so one tenant's burst cannot starve the others. */
  ingestionSlots: {
    name: 'ingestion-slots',
    envVar: 'TESSERA_TABLE_INGESTION_SLOTS',
    partitionKey: 'tenant_id',
  },
  /** Backend profiles of tenants: one row a version (`<profile_name>#<version>`), every version kept. */
  profiles: {
    name: 'profiles',
    envVar: 'TESSERA_TABLE_PROFILES',
    partitionKey: 'tenant_id',
    sortKey: 'profile_version',
  },
  /**
   * Configuration records, append-only: one row a version (`<kind>#<version>`) per tenant, the system
   * configuration under the reserved system tenant.
   */
  configRecords: {
    name: 'config-records',
    envVar: 'TESSERA_TABLE_CONFIG_RECORDS',
    partitionKey: 'tenant_id',
    sortKey: 'kind_version',
  },
  /** Each tenant's agent instructions: one item a tenant, its `version` moved by conditional writes. */
  instructions: {
    name: 'instructions',
    envVar: 'TESSERA_TABLE_INSTRUCTIONS',
    partitionKey: 'tenant_id',
  },
  /**
   * Provisioning: executions of the workflow (`execution#<id>`) with each step's outcome, and each tenant's
   * provisioned resources (`tenant#<id>`: namespace, quota, storage claim), the quota ingestion enforces.
   */
  provisioning: {
    name: 'provisioning',
    envVar: 'TESSERA_TABLE_PROVISIONING',
    partitionKey: 'pk',
    sortKey: 'sk',
  },
  /**
   * Locks of wiki pages being written (`scope` = the tenant's wiki schema): a conditional put takes one, its
   * owner removes it, an abandoned one expires (`lease_until`), so concurrent saves to a page never lose one.
   */
  wikiLocks: {
    name: 'wiki-locks',
    envVar: 'TESSERA_TABLE_WIKI_LOCKS',
    partitionKey: 'scope',
    sortKey: 'slug',
    ttlAttribute: 'expires_at',
  },
  /** Scheduled jobs of tenants: one row a job, with its next slot and the lease of its running run. */
  jobs: { name: 'jobs', envVar: 'TESSERA_TABLE_JOBS', partitionKey: 'tenant_id', sortKey: 'job_id' },
  /**
   * Messages queued for a tenant's linked chats (`{chat_id?, tenant_id, text}`; no chat id: every linked
   * chat), in order (`message_id` sorts by time); the messaging drain consumes them.
   */
  outboundMessages: {
    name: 'outbound-messages',
    envVar: 'TESSERA_TABLE_OUTBOUND_MESSAGES',
    partitionKey: 'tenant_id',
    sortKey: 'message_id',
  },
  /**
   * Messaging under the reserved system tenant (`pk`): invite tokens (`invite#<token>`: tenant, expiry,
   * the claiming user, consumption), user-to-tenant mappings (`user#<platform>#<user>`) and each tenant's
   * linked chats (`chat#<tenant>#<platform>#<user>`), all moved by conditional writes.
   */
  messaging: {
    name: 'messaging',
    envVar: 'TESSERA_TABLE_MESSAGING',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'expires_at',
  },
  /**
   * Chat conversations per tenant: a thread row (`thread#<context_id>`: title, count, last update) and one
   * row a message (`msg#<context_id>#<time>#<append>#<n>`), so concurrent appends to a thread lose nothing.
   */
  conversations: {
    name: 'conversations',
    envVar: 'TESSERA_TABLE_CONVERSATIONS',
    partitionKey: 'tenant_id',
    sortKey: 'item_key',
  },
  /** Harness keys of AG-UI runs: one row a key (its SHA-256, tenant, expiry, revocation), never the key. */
  harnessKeys: {
    name: 'harness-keys',
    envVar: 'TESSERA_TABLE_HARNESS_KEYS',
    partitionKey: 'key_id',
    ttlAttribute: 'expires_at',
  },
} satisfies Record<string, TableDef>;

export const queues = {
  ingestion: {
    name: 'ingestion',
    envVar: 'TESSERA_QUEUE_INGESTION',
    // Six times the ingestion worker's 900 s. A job whose worker died is queued again sooner by the
    // ingestion-recovery schedule (jobs idle for 20 minutes), and its lease tells a second delivery to wait.
    visibilityTimeoutSeconds: 5400,
    deadLetter: {
      name: 'ingestion-dead',
      envVar: 'TESSERA_QUEUE_INGESTION_DEAD',
      maxReceiveCount: 5,
      // Six times the dead-letter worker's 60 s.
      visibilityTimeoutSeconds: 360,
    },
  },
  /**
   * Completed agent runs (`{run_id, tenant_id, agent_name, query, context, result, completed_at}`): the
   * memory each leaves and its wiki filing, written by the agent-runs worker off the answer's path.
   */
  agentRuns: {
    name: 'agent-runs',
    envVar: 'TESSERA_QUEUE_AGENT_RUNS',
    // Six times the agent-runs worker's 60 s.
    visibilityTimeoutSeconds: 360,
    deadLetter: {
      name: 'agent-runs-dead',
      envVar: 'TESSERA_QUEUE_AGENT_RUNS_DEAD',
      maxReceiveCount: 5,
      // Nothing reads it but people (the alarm tells them); the same rule as every queue's.
      visibilityTimeoutSeconds: 360,
    },
  },
} satisfies Record<string, QueueDef>;

export const buckets = {
  uploads: {
    name: 'uploads',
    envVar: 'TESSERA_BUCKET_UPLOADS',
    // A presigned PUT carries its own authorization, so any origin may send one (the web client's uploads).
    cors: { allowedMethods: ['PUT'], allowedOrigins: ['*'], exposedHeaders: ['ETag'] },
  },
  search: { name: 'search', envVar: 'TESSERA_BUCKET_SEARCH' },
} satisfies Record<string, BucketDef>;

/** Object-created notifications from a bucket prefix to a queue (S3 event notifications in AWS). */
export interface NotificationDef {
  bucket: keyof typeof buckets;
  prefix: string;
  queue: keyof typeof queues;
}

export const bucketNotifications: NotificationDef[] = [
  // Presigned uploads land under incoming/; their arrival starts the job.
  { bucket: 'uploads', prefix: 'incoming/', queue: 'ingestion' },
];

/**
 * The variable holding the function URL of a streaming route (set by the stacks): its literal path segments,
 * upper-cased: `/events/ingestion/{job_id}` → `TESSERA_STREAM_URL_EVENTS_INGESTION`.
 */
export function streamingUrlVariable(route: string): string {
  const segments = route.split('/').filter((segment) => segment && !segment.startsWith('{'));
  return `TESSERA_STREAM_URL_${segments.map((segment) => segment.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()).join('_')}`;
}

/**
 * The variable holding the function URL of the long-run agent function (set by the stacks): the registry's
 * url of the agents whose runs outlive an API Gateway request.
 */
export const LONG_RUN_URL_VARIABLE = 'TESSERA_AGENT_LONG_RUN_URL';

/**
 * The variable holding the HTTP API's URL (set by the stacks on every function whose bundle reads it): the
 * agents' base URL, so a function served by a Function URL still calls sub-agents through the API.
 */
export const API_URL_VARIABLE = 'TESSERA_API_URL';
