/**
 * Jobs over fakes with the real agents' dispatch: create (schedule before record), list, get, delete, the
 * refusals, runs as workflow tasks with post actions, the ticker on a clock the test moves (on time, no
 * overlap, no replay of slots missed while down), a failing agent, and tenant delete.
 */
import path from 'node:path';
import {
  AGENTS,
  AgentRegistry,
  type AgentsDeps,
  entityNames,
  loadRegistry,
  registeredAgents,
  runAgentTask,
} from '@tessera/agents';
import { Jobs } from '@tessera/api';
import { llmClientOf } from '@tessera/config/llm';
import { indexDocuments } from '@tessera/content';
import { HttpError } from '@tessera/core';
import { CompromiseEntityExtractor } from '@tessera/extractors';
import { parseLlmEnv } from '@tessera/llm';
import { createTenant, deleteTenant } from '@tessera/tenancy';
import {
  fakeDomains,
  InMemoryJobStore,
  InMemoryOutboundStore,
  RecordingSchedules,
} from '@tessera/testing/fakes';
import { getPage, wikiIndex } from '@tessera/wiki';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createJob,
  deleteJob,
  fireDueJobs,
  getJob,
  type JobsDeps,
  jobsData,
  listJobs,
  listOutbound,
  runJob,
} from '../src/index';

const domains = fakeDomains();
const configDir = path.resolve(import.meta.dirname, '../../../configs');
const entities = new CompromiseEntityExtractor();
const agentDeps: AgentsDeps = {
  registry: new AgentRegistry(loadRegistry(configDir), new Set(AGENTS.keys())),
  content: domains.content,
  config: domains.config,
  events: domains.ingestion.events,
  llm: llmClientOf(domains.config, parseLlmEnv({})),
  entities,
  memories: domains.memories,
  version: '0.1.0',
};
const schedules = new RecordingSchedules();
const store = new InMemoryJobStore();
const outbound = new InMemoryOutboundStore();
let slowMs = 0;
const deps: JobsDeps = {
  tenancy: domains.tenancy,
  store,
  outbound,
  schedules,
  events: domains.ingestion.events,
  wiki: domains.wiki,
  requireAgent: async (name) => {
    AgentRegistry.find(await registeredAgents(agentDeps, ''), name);
  },
  runAgent: async (name, query, tenantId, reporter) => {
    if (slowMs) await new Promise((resolve) => setTimeout(resolve, slowMs));
    return runAgentTask(agentDeps, name, query, { tenant_id: tenantId }, reporter, { baseUrl: '' });
  },
  tag: entityNames(entities),
  leaseMs: 15 * 60_000,
  now: domains.clock.now,
};
domains.tenancy.owners!.register(jobsData(deps));

const body = (patch: Record<string, unknown> = {}) =>
  Jobs.CreateJobRequest.parse({
    name: 'digest',
    schedule: 'rate(1 minute)',
    query: 'invoices late fee',
    agent_name: 'search_agent',
    ...patch,
  });

const status = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
};

beforeAll(async () => {
  for (const tenant of ['acme', 'gone', 'bare'])
    await createTenant(domains.tenancy, { tenant_id: tenant, created_by: 'test' });
  await indexDocuments(domains.content, {
    tenant: 'acme',
    profile: 'document_text_semantic',
    sourceDocId: 'handbook.md',
    documents: [
      {
        fields: {
          title: 'handbook.md',
          text: 'Invoices are paid within thirty days by Acme Corporation in Berlin.',
        },
      },
      {
        fields: {
          title: 'handbook.md',
          text: 'Late invoices carry a fee of two percent, says Marie Curie of Acme Corporation.',
        },
      },
    ],
  });
});

describe('job routes', () => {
  it('creates a job: the schedule first, then the record; lists and gets it', async () => {
    const job = await createJob(deps, 'acme', body({ post_actions: [{ type: 'wiki' }] }));
    expect(job).toMatchObject({
      name: 'digest',
      agent_name: 'search_agent',
      schedule: 'rate(1 minute)',
      last_run: null,
      run_count: 0,
    });
    expect(job.job_id).toMatch(/^job_[0-9a-f]{16}$/);
    expect(Date.parse(job.next_run) - Date.parse(job.created_at)).toBe(60_000);
    expect(schedules.live.has(job.job_id)).toBe(true);
    expect((await listJobs(deps, 'acme')).jobs.map((j) => j.job_id)).toContain(job.job_id);
    expect(await getJob(deps, 'acme', job.job_id)).toEqual(job);
    await deleteJob(deps, 'acme', job.job_id);
  });

  it('refuses an unknown agent (404) and an unknown tenant, writing nothing', async () => {
    const before = store.jobs.size;
    await expect(createJob(deps, 'acme', body({ agent_name: 'no_such_agent' }))).rejects.toMatchObject({
      status: 404,
      detail: "Agent 'no_such_agent' not found",
    });
    expect(await status(createJob(deps, 'nobody', body()))).toBe(404);
    expect(store.jobs.size).toBe(before);
    expect(schedules.live.size).toBe(0);
  });

  it('refuses schedules EventBridge cannot run (422 at validation)', () => {
    for (const schedule of ['*/30 * * * * *', '0 9 1 * MON', 'rate(0 minutes)', '0 0 12 * * ?']) {
      expect(Jobs.CreateJobRequest.safeParse({ name: 'x', schedule, query: 'q' }).success, schedule).toBe(
        false,
      );
    }
    expect(
      Jobs.CreateJobRequest.safeParse({ name: 'x', schedule: '* * * * *', query: 'q', timezone: 'Mars/Base' })
        .success,
    ).toBe(false);
  });

  it('stores no job whose schedule could not be created', async () => {
    schedules.failNext = true;
    const before = store.jobs.size;
    await expect(createJob(deps, 'acme', body())).rejects.toThrow('scheduler unavailable');
    expect(store.jobs.size).toBe(before);
  });

  it('deletes a job with its schedule; an unknown one is 404', async () => {
    const job = await createJob(deps, 'acme', body());
    expect(await deleteJob(deps, 'acme', job.job_id)).toEqual({ status: 'deleted', job_id: job.job_id });
    expect(schedules.live.has(job.job_id)).toBe(false);
    expect(await status(getJob(deps, 'acme', job.job_id))).toBe(404);
    expect(await status(deleteJob(deps, 'acme', job.job_id))).toBe(404);
  });
});

describe('job runs', () => {
  it('fires a due job on its slot: a workflow task whose answer lands in the wiki and the outbound queue', async () => {
    const startedAt = domains.clock.now();
    const job = await createJob(
      deps,
      'acme',
      body({ post_actions: [{ type: 'wiki' }, { type: 'messaging' }] }),
    );
    expect((await fireDueJobs(deps, startedAt)).fired.map((f) => f.job_id)).not.toContain(job.job_id);
    domains.clock.offset += 60_000;
    const tick = await fireDueJobs(deps, startedAt);
    expect(tick.fired.map((f) => f.job_id)).toContain(job.job_id);
    const [outcome] = await tick.runs;
    expect(outcome).toMatchObject({ status: 'completed' });
    const events = await domains.ingestion.events.read(outcome!.workflow_id!, 0);
    expect(events.at(-1)).toMatchObject({ type: 'complete' });
    const stored = await getJob(deps, 'acme', job.job_id);
    expect(stored).toMatchObject({
      run_count: 1,
      last_run: { state: 'completed', workflow_id: outcome!.workflow_id },
    });
    expect(Date.parse(stored.next_run) - Date.parse(job.next_run)).toBe(60_000);
    const sessions = (await wikiIndex(domains.wiki, 'acme')).pages.filter((p) => p.kind === 'session');
    expect(sessions.map((p) => p.title)).toContain('invoices late fee');
    const session = await getPage(
      domains.wiki,
      'acme',
      sessions.find((p) => p.title === 'invoices late fee')!.slug,
    );
    expect(session.content).toContain('Late invoices carry a fee of two percent');
    const messages = (await listOutbound(deps, 'acme')).messages;
    expect(messages.at(-1)).toMatchObject({
      tenant_id: 'acme:acme',
      chat_id: null,
      source: `job:${job.job_id}`,
    });
    expect(messages.at(-1)!.text).toMatch(/^Job 'digest': /);
    await deleteJob(deps, 'acme', job.job_id);
  });

  it('posts the plain fact when the agent found nothing, never a JSON block', async () => {
    // The tenant 'bare' has no content: the search agent answers no hits.
    const startedAt = domains.clock.now();
    const job = await createJob(
      deps,
      'bare',
      body({ name: 'empty digest', post_actions: [{ type: 'wiki' }, { type: 'messaging' }] }),
    );
    domains.clock.offset += 60_000;
    const tick = await fireDueJobs(deps, startedAt);
    const outcomes = await tick.runs;
    expect(outcomes).toContainEqual(expect.objectContaining({ status: 'completed' }));
    const sessions = (await wikiIndex(domains.wiki, 'bare')).pages.filter((p) => p.kind === 'session');
    const session = await getPage(domains.wiki, 'bare', sessions[0]!.slug);
    expect(session.content).toContain('## Answer\n\nNo matching content was found.');
    expect(session.content).not.toContain('```');
    const messages = (await listOutbound(deps, 'bare')).messages;
    expect(messages.at(-1)!.text).toBe("Job 'empty digest': No matching content was found.");
    await deleteJob(deps, 'bare', job.job_id);
  });

  it('reports a failing agent as the run’s ErrorEvent, and the next slot still runs', async () => {
    const startedAt = domains.clock.now();
    const job = await createJob(deps, 'acme', body({ agent_name: 'coding_agent' }));
    for (let slot = 0; slot < 2; slot++) {
      domains.clock.offset += 60_000;
      const tick = await fireDueJobs(deps, startedAt);
      const outcomes = await tick.runs;
      const mine = outcomes[tick.fired.findIndex((f) => f.job_id === job.job_id)]!;
      expect(mine.status).toBe('failed');
      const events = await domains.ingestion.events.read(mine.workflow_id!, 0);
      expect(events.at(-1)).toMatchObject({ type: 'error' });
    }
    expect(await getJob(deps, 'acme', job.job_id)).toMatchObject({
      run_count: 2,
      last_run: { state: 'failed' },
    });
    await deleteJob(deps, 'acme', job.job_id);
  });

  it('never overlaps a run of the same job, and fires each slot once across tickers', async () => {
    const startedAt = domains.clock.now();
    const job = await createJob(deps, 'acme', body());
    domains.clock.offset += 60_000;
    slowMs = 200;
    try {
      const [a, b] = await Promise.all([fireDueJobs(deps, startedAt), fireDueJobs(deps, startedAt)]);
      expect([...a.fired, ...b.fired].filter((f) => f.job_id === job.job_id)).toHaveLength(1);
      // A second invocation while the first still runs (an EventBridge slot while a long run goes on) is skipped.
      const overlapping = await runJob(deps, { tenant_id: 'acme:acme', job_id: job.job_id });
      expect(overlapping.status).toBe('skipped');
      await Promise.all([a.runs, b.runs]);
    } finally {
      slowMs = 0;
    }
    expect((await runJob(deps, { tenant_id: 'acme:acme', job_id: job.job_id })).status).toBe('completed');
    await deleteJob(deps, 'acme', job.job_id);
  });

  it('does not replay slots missed while the runtime was down', async () => {
    const job = await createJob(deps, 'acme', body());
    // Down for ten minutes: the runtime starts again after them.
    domains.clock.offset += 10 * 60_000;
    const restartedAt = domains.clock.now();
    const tick = await fireDueJobs(deps, restartedAt);
    expect(tick.fired.map((f) => f.job_id)).not.toContain(job.job_id);
    expect(tick.missed.map((f) => f.job_id)).toContain(job.job_id);
    const stored = await getJob(deps, 'acme', job.job_id);
    expect(stored.run_count).toBe(0);
    expect(Date.parse(stored.next_run)).toBeGreaterThan(restartedAt);
    domains.clock.offset += 60_000;
    const next = await fireDueJobs(deps, restartedAt);
    expect(next.fired.map((f) => f.job_id)).toContain(job.job_id);
    await next.runs;
    await deleteJob(deps, 'acme', job.job_id);
  });

  it('removes the stray schedule of a job that no longer exists', async () => {
    schedules.live.set('job_stray', undefined as never);
    expect(await runJob(deps, { tenant_id: 'acme:acme', job_id: 'job_stray' })).toEqual({
      status: 'missing',
    });
    expect(schedules.live.has('job_stray')).toBe(false);
  });
});

describe('tenant delete', () => {
  it('removes the tenant’s jobs, their schedules and its queued messages', async () => {
    const job = await createJob(deps, 'gone', body({ post_actions: [{ type: 'messaging' }] }));
    await runJob(deps, { tenant_id: 'gone:gone', job_id: job.job_id });
    expect((await listOutbound(deps, 'gone')).count).toBe(1);
    await deleteTenant(domains.tenancy, 'gone');
    expect(schedules.live.has(job.job_id)).toBe(false);
    expect(await store.list('gone:gone')).toEqual([]);
    expect(await outbound.list('gone:gone')).toEqual([]);
  });
});
