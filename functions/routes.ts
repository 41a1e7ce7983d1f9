/**
 * The route table: every HTTP route and schedule with the handler that serves it, as `<module>.<export>`
 * under functions/. The API stack and the local runtime both read this list.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

interface RouteBase {
  method: HttpMethod;
  /** API Gateway route path: `{name}` for one segment, `{name+}` for the rest. */
  path: string;
  handler: string;
  /** Lambda timeout (default 30 s); at most 29 for API routes, as API Gateway stops waiting after 30 s. */
  timeoutSeconds?: number;
  /**
   * Runs that outlive an API Gateway request (the orchestrator's and deep research's): the route is also
   * served by a function of this timeout behind a function URL (`longRunHandler`, which reads the path
   * parameters from the URL's path), and every other function gets that URL in `LONG_RUN_URL_VARIABLE`.
   * It has the memory of the route's module.
   */
  longRun?: { handler: string; timeoutSeconds: number };
}

/**
 * An API route, served by the function its handler module's API routes share (with the module's memory,
 * `moduleMemoryMb`), or a response-streaming route (server-sent events) served by a function of its own
 * through a function URL.
 */
export type RouteDef =
  | (RouteBase & { streaming?: false })
  | (RouteBase & { streaming: true; memoryMb?: number });

/**
 * The memory of the function serving a handler module's API routes, where the default is not enough: these
 * read a tenant's tables, graph or wiki pages into memory, take uploads, or run agents.
 */
export const moduleMemoryMb: Readonly<Record<string, number>> = {
  'http/search': 2048,
  'http/graph': 2048,
  'http/ingestion': 2048,
  'http/agents': 2048,
  'http/wiki': 2048,
  // The knowledge agents' routes read the tenant's graph into memory, as the graph routes do.
  'http/knowledge': 2048,
};

export interface ScheduleDef {
  name: string;
  handler: string;
  rateMinutes: number;
  /** The local runtime also runs it once when it starts. */
  atStartup: boolean;
}

/** A worker fed by a queue (an SQS event source mapping in AWS, a poller in the local runtime). */
export interface QueueWorkerDef {
  name: string;
  /** Key of the queue in the shared resource definition. */
  queue: 'ingestion' | 'agentRuns';
  /** Reads the queue's dead-letter queue instead. */
  deadLetter?: boolean;
  handler: string;
  batchSize: number;
  /** Batches handled at once (Lambda's maximum concurrency of the mapping; pollers locally). */
  concurrency: number;
  timeoutSeconds: number;
  memoryMb?: number;
}

/** A function a Step Functions state machine invokes (locally, the runtime runs the definition in process). */
export interface StepFunctionDef {
  name: string;
  handler: string;
  timeoutSeconds: number;
  memoryMb?: number;
}

export const routes: RouteDef[] = [
  { method: 'GET', path: '/health', handler: 'http/health.health' },

  { method: 'POST', path: '/admin/organizations', handler: 'http/organizations.createOrganization' },
  { method: 'GET', path: '/admin/organizations', handler: 'http/organizations.listOrganizations' },
  { method: 'GET', path: '/admin/organizations/{org_id}', handler: 'http/organizations.getOrganization' },
  {
    method: 'GET',
    path: '/admin/organizations/{org_id}/tenants',
    handler: 'http/organizations.listOrganizationTenants',
  },
  {
    method: 'DELETE',
    path: '/admin/organizations/{org_id}',
    handler: 'http/organizations.deleteOrganization',
    timeoutSeconds: 29,
  },

  { method: 'POST', path: '/admin/tenants', handler: 'http/tenants.createTenant', timeoutSeconds: 29 },
  { method: 'GET', path: '/admin/tenants/{tenant_full_id}', handler: 'http/tenants.getTenant' },
  {
    method: 'DELETE',
    path: '/admin/tenants/{tenant_full_id}',
    handler: 'http/tenants.deleteTenant',
    timeoutSeconds: 29,
  },
  { method: 'PUT', path: '/admin/tenants/{tenant_full_id}/tier', handler: 'http/tenants.setTenantTier' },
  { method: 'GET', path: '/admin/tenants/{tenant_full_id}/tier', handler: 'http/tenants.getTenantTier' },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/provision',
    handler: 'http/provisioning.provisionTenant',
    timeoutSeconds: 29,
  },

  {
    method: 'GET',
    path: '/admin/tenants/{tenant_full_id}/config/{kind}',
    handler: 'http/config.getTenantConfig',
  },
  {
    method: 'PUT',
    path: '/admin/tenants/{tenant_full_id}/config/{kind}',
    handler: 'http/config.putTenantConfig',
  },
  {
    method: 'GET',
    path: '/admin/tenants/{tenant_full_id}/config/{kind}/history',
    handler: 'http/config.tenantConfigHistory',
  },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/config/{kind}/rollback',
    handler: 'http/config.rollbackTenantConfig',
  },
  { method: 'GET', path: '/admin/config/system', handler: 'http/config.getSystemConfig' },
  { method: 'PUT', path: '/admin/config/system', handler: 'http/config.putSystemConfig' },
  { method: 'GET', path: '/admin/config/system/history', handler: 'http/config.systemConfigHistory' },
  { method: 'POST', path: '/admin/config/system/rollback', handler: 'http/config.rollbackSystemConfig' },

  { method: 'POST', path: '/admin/profiles', handler: 'http/profiles.createProfile', timeoutSeconds: 29 },
  { method: 'GET', path: '/admin/profile-templates', handler: 'http/profiles.profileTemplates' },
  { method: 'GET', path: '/admin/profiles', handler: 'http/profiles.listProfiles' },
  { method: 'GET', path: '/admin/profiles/{profile_name}', handler: 'http/profiles.getProfile' },
  { method: 'PUT', path: '/admin/profiles/{profile_name}', handler: 'http/profiles.updateProfile' },
  {
    method: 'DELETE',
    path: '/admin/profiles/{profile_name}',
    handler: 'http/profiles.deleteProfile',
    timeoutSeconds: 29,
  },
  {
    method: 'POST',
    path: '/admin/profiles/{profile_name}/deploy',
    handler: 'http/profiles.deployProfile',
    timeoutSeconds: 29,
  },

  {
    method: 'POST',
    path: '/admin/reconcile-orphans',
    handler: 'http/schemas.reconcileOrphans',
    timeoutSeconds: 29,
  },
  { method: 'GET', path: '/admin/schemas/drift', handler: 'http/schemas.schemaDrift' },

  { method: 'POST', path: '/search', handler: 'http/search.search' },
  { method: 'GET', path: '/search/profiles', handler: 'http/search.profiles' },

  { method: 'POST', path: '/graph/upsert', handler: 'http/graph.upsert' },
  { method: 'GET', path: '/graph/search', handler: 'http/graph.search' },
  { method: 'GET', path: '/graph/neighbors', handler: 'http/graph.neighbors' },
  { method: 'GET', path: '/graph/path', handler: 'http/graph.path' },
  { method: 'GET', path: '/graph/stats', handler: 'http/graph.stats' },

  {
    method: 'GET',
    path: '/events/workflows/{workflow_id}',
    handler: 'http/events.workflowEvents',
    streaming: true,
    timeoutSeconds: 900,
  },
  {
    method: 'GET',
    path: '/events/ingestion/{job_id}',
    handler: 'http/events.ingestionEvents',
    streaming: true,
    timeoutSeconds: 900,
  },
  {
    method: 'POST',
    path: '/ingestion/upload',
    handler: 'http/ingestion.upload',
    timeoutSeconds: 29,
  },
  { method: 'POST', path: '/ingestion/uploads', handler: 'http/ingestion.presign' },
  { method: 'POST', path: '/ingestion/start', handler: 'http/ingestion.start', timeoutSeconds: 29 },
  { method: 'GET', path: '/ingestion/{job_id}/events', handler: 'http/ingestion.status' },

  { method: 'POST', path: '/events/workflows/{workflow_id}/cancel', handler: 'http/events.cancelWorkflow' },
  { method: 'POST', path: '/events/ingestion/{job_id}/cancel', handler: 'http/ingestion.cancel' },
  { method: 'GET', path: '/events/queues', handler: 'http/events.queues' },
  { method: 'GET', path: '/events/queues/{task_id}', handler: 'http/events.queueInfo' },
  { method: 'GET', path: '/events/queues/{task_id}/offset', handler: 'http/events.queueOffset' },

  { method: 'GET', path: '/agents', handler: 'http/agents.listAgents' },
  { method: 'GET', path: '/agents/by-capability/{capability}', handler: 'http/agents.agentsByCapability' },
  { method: 'GET', path: '/agents/{agent_name}/card', handler: 'http/agents.agentCard' },
  {
    method: 'POST',
    path: '/agents/{agent_name}/process',
    handler: 'http/agents.processAgent',
    timeoutSeconds: 29,
    longRun: { handler: 'http/agents.processLongRun', timeoutSeconds: 900 },
  },

  { method: 'GET', path: '/admin/tenant/{tenant}/memories', handler: 'http/memories.listMemories' },
  { method: 'DELETE', path: '/admin/tenant/{tenant}/memories', handler: 'http/memories.deleteMemories' },
  { method: 'PUT', path: '/admin/tenant/{tenant}/instructions', handler: 'http/memories.putInstructions' },
  { method: 'GET', path: '/admin/tenant/{tenant}/instructions', handler: 'http/memories.getInstructions' },
  { method: 'POST', path: '/wiki/save', handler: 'http/wiki.save' },
  { method: 'POST', path: '/wiki/search', handler: 'http/wiki.search' },
  { method: 'GET', path: '/wiki/topic/{slug}', handler: 'http/wiki.getTopic' },
  { method: 'DELETE', path: '/wiki/topic/{slug}', handler: 'http/wiki.deleteTopic' },
  { method: 'GET', path: '/wiki/index', handler: 'http/wiki.index' },
  { method: 'GET', path: '/wiki/lint', handler: 'http/wiki.lint' },

  { method: 'POST', path: '/admin/tenant/{tenant}/jobs', handler: 'http/jobs.createJob' },
  { method: 'GET', path: '/admin/tenant/{tenant}/jobs', handler: 'http/jobs.listJobs' },
  { method: 'GET', path: '/admin/tenant/{tenant}/jobs/{job_id}', handler: 'http/jobs.getJob' },
  { method: 'DELETE', path: '/admin/tenant/{tenant}/jobs/{job_id}', handler: 'http/jobs.deleteJob' },
  { method: 'GET', path: '/admin/tenant/{tenant}/outbound', handler: 'http/jobs.listOutbound' },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/knowledge/graph/traverse',
    handler: 'http/knowledge.traverse',
  },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/knowledge/temporal/compare',
    handler: 'http/knowledge.temporalCompare',
  },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/knowledge/synthesis/synthesize',
    handler: 'http/knowledge.synthesize',
  },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/knowledge/contradictions/detect',
    handler: 'http/knowledge.detectContradictions',
  },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/knowledge/summaries/summarize',
    handler: 'http/knowledge.summarize',
  },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/knowledge/citations/trace',
    handler: 'http/knowledge.traceCitation',
  },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/knowledge/audit/explain',
    handler: 'http/knowledge.explainAudit',
  },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/knowledge/cross_tenant/compare',
    handler: 'http/knowledge.compareTenants',
  },
  {
    method: 'POST',
    path: '/admin/tenants/{tenant_full_id}/knowledge/federated/query',
    handler: 'http/knowledge.federatedQuery',
  },

  { method: 'POST', path: '/admin/messaging/invite', handler: 'http/messaging.invite' },
  { method: 'POST', path: '/admin/messaging/register', handler: 'http/messaging.register' },
  { method: 'GET', path: '/admin/messaging/resolve', handler: 'http/messaging.resolve' },
  { method: 'GET', path: '/admin/messaging/outbound/drain', handler: 'http/messaging.drain' },
  { method: 'POST', path: '/messaging/send', handler: 'http/messaging.send' },
  // Chat answers JSON or, with `stream: true`, server-sent events: a response-streaming function (a function
  // URL in AWS, like the event streams), whose run may outlive API Gateway's 30 s.
  {
    method: 'POST',
    path: '/v1/chat/completions',
    handler: 'http/chat.chatCompletions',
    streaming: true,
    timeoutSeconds: 300,
    memoryMb: 2048,
  },
  { method: 'GET', path: '/conversations', handler: 'http/chat.listConversations' },
  { method: 'GET', path: '/conversations/{context_id}', handler: 'http/chat.getConversation' },
  { method: 'DELETE', path: '/conversations/{context_id}', handler: 'http/chat.deleteConversation' },
  { method: 'POST', path: '/admin/harness/keys', handler: 'http/ag-ui.createHarnessKey' },
  { method: 'DELETE', path: '/admin/harness/keys/{key_id}', handler: 'http/ag-ui.revokeHarnessKey' },
  {
    method: 'POST',
    path: '/ag-ui/{agent}',
    handler: 'http/ag-ui.agUiRun',
    streaming: true,
    timeoutSeconds: 300,
    memoryMb: 2048,
  },

  { method: 'GET', path: '/openapi.json', handler: 'http/openapi.openapi' },
];

/** Serves every request no route matches. */
export const fallbackHandler = 'http/fallback.notFound';

export const schedules: ScheduleDef[] = [
  { name: 'tenant-recovery', handler: 'workers/maintenance.recoverTenants', rateMinutes: 5, atStartup: true },
  {
    name: 'schema-migration',
    handler: 'workers/maintenance.migrateSchemas',
    rateMinutes: 5,
    atStartup: true,
  },
  {
    name: 'ingestion-recovery',
    handler: 'workers/ingestion.recoverJobs',
    rateMinutes: 15,
    atStartup: false,
  },
  // Readers ignore an ended workflow's events once its 30 minutes of retention are over; this frees the rows
  // (DynamoDB's TTL deletes late, the emulators never). Every 30 minutes, the length of the retention: the rows
  // cost only space meanwhile.
  {
    name: 'task-event-sweep',
    handler: 'workers/maintenance.sweepTaskEvents',
    rateMinutes: 30,
    atStartup: false,
  },
];

/**
 * A scheduled job's run: the function each job's EventBridge Scheduler schedule invokes (stacks/jobs.ts).
 * Locally the runtime's ticker fires the same runs.
 */
export const jobRunFunction = {
  name: 'job-run',
  handler: 'workers/jobs.runJob',
  // A run is an agent's run (its timeout) and its post actions.
  timeoutSeconds: 900,
  memoryMb: 2048,
} as const satisfies StepFunctionDef;

/**
 * The Telegram gateway in AWS (webhook mode, composed when the deployment names the bot token's secret): the
 * function URL Telegram posts updates to, answering within a second, and the worker of the FIFO queue it
 * hands them to (stacks/telegram.ts). Locally the gateway is its own process (`npm run gateway`).
 */
export const telegramFunctions = {
  webhook: { name: 'telegram-webhook', handler: 'workers/telegram.webhook', timeoutSeconds: 10 },
  worker: {
    name: 'telegram-worker',
    handler: 'workers/telegram.processUpdates',
    // A batch of one chat's updates, each an agent's answer (the runtime's API answers within 30 s).
    timeoutSeconds: 300,
    memoryMb: 512,
  },
  // Outbound delivery: started every minute, it drains and sends every poll interval until the next start.
  delivery: { name: 'telegram-delivery', handler: 'workers/telegram.deliver', timeoutSeconds: 60 },
} as const satisfies Record<string, StepFunctionDef>;

/**
 * Work the local runtime repeats every `everyMs` in place of an AWS service: the ticker that fires due jobs
 * from the job store where no EventBridge Scheduler schedule exists for them.
 */
export interface LocalTickerDef {
  name: string;
  handler: string;
  everyMs: number;
}

export const localTickers: LocalTickerDef[] = [
  { name: 'job-scheduler', handler: 'workers/jobs.fireDue', everyMs: 500 },
];

export const queueWorkers: QueueWorkerDef[] = [
  {
    name: 'ingestion-worker',
    queue: 'ingestion',
    handler: 'workers/ingestion.processJobs',
    // One job a batch: a job that fails is redelivered alone.
    batchSize: 1,
    concurrency: 2,
    timeoutSeconds: 900,
    memoryMb: 3008,
  },
  {
    name: 'ingestion-dead-letters',
    queue: 'ingestion',
    deadLetter: true,
    handler: 'workers/ingestion.deadLetters',
    batchSize: 10,
    concurrency: 1,
    timeoutSeconds: 60,
  },
  {
    // The memory and wiki filing of each completed agent run (a memory is one embedding and one table write).
    name: 'agent-runs',
    queue: 'agentRuns',
    handler: 'workers/agent-runs.recordRuns',
    batchSize: 10,
    concurrency: 2,
    timeoutSeconds: 60,
    memoryMb: 1024,
  },
];

/** `http/tenants.createTenant` → the module path under functions/ and the export name. */
export function splitHandler(handler: string): { module: string; exportName: string } {
  const dot = handler.lastIndexOf('.');
  return { module: handler.slice(0, dot), exportName: handler.slice(dot + 1) };
}

/** The provisioning workflow's step function (every state of the state machine invokes it). */
export const stepFunctions: StepFunctionDef[] = [
  { name: 'provisioning-step', handler: 'workers/provisioning.step', timeoutSeconds: 900, memoryMb: 1024 },
];
