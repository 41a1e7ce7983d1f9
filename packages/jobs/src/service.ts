/** The job routes' domain: create (schedule first, then the record), list, get, delete; the outbound list. */
import { randomBytes } from 'node:crypto';
import type { Jobs } from '@tessera/api';
import { NotFoundError, type TenantId } from '@tessera/core';
import { requireTenant } from '@tessera/tenancy';
import type { JobsDeps } from './deps';
import { nextSlot } from './schedule';
import type { StoredJob } from './store';

const iso = (ms: number) => new Date(ms).toISOString();

export function publicJob(job: StoredJob): Jobs.Job {
  const run = job.last_run;
  return {
    job_id: job.job_id,
    tenant_id: job.tenant_id,
    name: job.name,
    schedule: job.schedule,
    timezone: job.timezone,
    query: job.query,
    agent_name: job.agent_name,
    post_actions: job.post_actions,
    next_run: iso(job.next_run),
    created_at: iso(job.created_at),
    last_run: run
      ? {
          workflow_id: run.workflow_id,
          state: run.state,
          scheduled_for: iso(run.scheduled_for),
          started_at: iso(run.started_at),
          finished_at: run.finished_at === null ? null : iso(run.finished_at),
          error: run.error,
        }
      : null,
    run_count: job.run_count,
  };
}

export const newJobId = () => `job_${randomBytes(8).toString('hex')}`;

export async function createJob(
  deps: JobsDeps,
  tenantId: string,
  body: Jobs.CreateJobRequest,
): Promise<Jobs.Job> {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  await deps.requireAgent(body.agent_name);
  const now = deps.now();
  const job: StoredJob = {
    tenant_id: tenant.full,
    job_id: newJobId(),
    name: body.name,
    schedule: body.schedule.trim(),
    timezone: body.timezone,
    query: body.query,
    agent_name: body.agent_name,
    post_actions: body.post_actions,
    created_at: now,
    next_run: nextSlot(body.schedule, body.timezone, now, now),
    run_count: 0,
    last_run: null,
    lease_until: 0,
  };
  // The schedule first: a job is never stored without one. A record that cannot be written takes its
  // schedule back with it.
  await deps.schedules.create(job);
  try {
    if (!(await deps.store.create(job))) throw new Error(`Job id ${job.job_id} is taken`);
  } catch (error) {
    await deps.schedules.remove(job.job_id).catch(() => undefined);
    throw error;
  }
  return publicJob(job);
}

export async function listJobs(deps: JobsDeps, tenantId: string) {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const jobs = (await deps.store.list(tenant.full)).map(publicJob);
  return { jobs, total_count: jobs.length };
}

const notFound = (jobId: string) => new NotFoundError(`Job '${jobId}' not found`);

export async function getJob(deps: JobsDeps, tenantId: string, jobId: string) {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const job = await deps.store.get(tenant.full, jobId);
  if (!job) throw notFound(jobId);
  return publicJob(job);
}

/** Removes the job's schedule, then the job: a schedule never outlives its job. */
export async function deleteJob(deps: JobsDeps, tenantId: string, jobId: string) {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const job = await deps.store.get(tenant.full, jobId);
  if (!job) throw notFound(jobId);
  await deps.schedules.remove(job.job_id);
  await deps.store.remove(tenant.full, job.job_id);
  return { status: 'deleted' as const, job_id: job.job_id };
}

export async function listOutbound(deps: JobsDeps, tenantId: string) {
  const { tenant } = await requireTenant(deps.tenancy, tenantId);
  const messages = (await deps.outbound.list(tenant.full)).map((m) => ({
    message_id: m.message_id,
    tenant_id: m.tenant_id,
    chat_id: m.chat_id,
    text: m.text,
    source: m.source,
    created_at: iso(m.created_at),
  }));
  return { messages, count: messages.length };
}

/** A tenant's jobs, their schedules and its queued messages, removed by a tenant delete. */
export async function purgeTenantJobs(
  deps: Pick<JobsDeps, 'store' | 'outbound' | 'schedules'>,
  tenant: TenantId,
): Promise<void> {
  for (const job of await deps.store.list(tenant.full)) {
    await deps.schedules.remove(job.job_id);
    await deps.store.remove(tenant.full, job.job_id);
  }
  await deps.outbound.purgeTenant(tenant.full);
}
