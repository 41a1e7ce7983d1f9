/**
 * The provisioning workflow (document 2; clarifications, "Provisioning"): a start answers the execution of the
 * tenant and its input (the same one for every start of the same provisioning), and runs it or resumes it;
 * the step function runs one step of it, skipping a step an earlier attempt finished, and reports each on
 * the attempt's workflow task. A failed run, or one whose process died (its lease lapsed), is resumed by the
 * next start from its first unfinished step.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Provisioning } from '@tessera/api';
import { failpoint, log, NotFoundError } from '@tessera/core';
import type { EventBody } from '@tessera/events';
import { tenantProfiles } from '@tessera/profiles';
import { requireTenant } from '@tessera/tenancy';
import { STEP_ERROR, type StepPayload } from './definition';
import type { ProvisioningDeps } from './deps';
import { type Outcome, STEPS, StepFailedError } from './steps';
import type { ExecutionRecord } from './store';

/** Steps run by Step Functions renew the execution's lease for this long (a Lambda's longest run). */
export const STATE_MACHINE_LEASE_MS = 15 * 60_000;

/** Sorted keys, so the same input always names the same execution. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The execution of a tenant's provisioning with `input`: a name Step Functions takes (at most 80 of
 * `[A-Za-z0-9_-]`), derived from both, so a repeated start finds it.
 */
export function executionName(tenantId: string, input: Provisioning.ProvisionRequest): string {
  const hash = createHash('sha256')
    .update(`${tenantId}\n${canonicalJson(input)}`)
    .digest('hex')
    .slice(0, 16);
  const readable = tenantId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 52);
  return `prov-${readable}-${hash}`;
}

const workflowIdOf = (executionId: string, attempt: number) => `${executionId}-a${attempt}`;

function answer(record: ExecutionRecord): Provisioning.ProvisionStarted {
  return {
    execution_id: record.execution_id,
    workflow_id: record.workflow_id,
    events_url: `/events/workflows/${record.workflow_id}`,
    status: record.status,
  };
}

/** Opens the attempt's workflow task, held under the execution's owner. */
async function openTask(deps: ProvisioningDeps, record: ExecutionRecord, leaseMs: number): Promise<void> {
  await deps.events.open({
    task_id: record.workflow_id,
    kind: 'workflow',
    tenant_id: record.tenant_id,
    owner: record.owner,
    leaseMs,
  });
  await deps.events.append(record.workflow_id, {
    type: 'status',
    state: 'working',
    phase: 'started',
    message: `Provisioning ${record.execution_id} of tenant ${record.tenant_id}, attempt ${record.attempt}`,
  });
}

const leaseOf = (deps: ProvisioningDeps) =>
  deps.runner?.kind === 'state-machine' ? STATE_MACHINE_LEASE_MS : deps.leaseMs;

/**
 * Starts (or finds) the tenant's provisioning with `input`. Running or succeeded: answered as it is. Failed,
 * or stopped half-way (its lease lapsed): resumed as a new attempt that skips the steps already finished.
 */
export async function startProvisioning(
  deps: ProvisioningDeps,
  rawTenantId: string,
  input: Provisioning.ProvisionRequest,
): Promise<Provisioning.ProvisionStarted> {
  const { tenant } = await requireTenant(deps.tenancy, rawTenantId);
  // Profiles the tenant does not have are refused now (404), before any execution or task is written.
  if (input.profiles) {
    const view = await tenantProfiles(deps.profiles, tenant.full, { fresh: true });
    const missing = input.profiles.filter((name) => !view.get(name));
    if (missing.length > 0) {
      throw new NotFoundError(
        `Profile${missing.length > 1 ? 's' : ''} ${missing.map((name) => `'${name}'`).join(', ')} not found for tenant '${tenant.full}'`,
      );
    }
  }
  const executionId = executionName(tenant.full, input);
  const leaseMs = leaseOf(deps);
  for (let tries = 0; tries < 5; tries++) {
    const existing = await deps.store.getExecution(tenant.full, executionId);
    const now = deps.now();
    if (
      existing &&
      (existing.status === 'succeeded' || (existing.status === 'running' && existing.lease_until > now))
    ) {
      return answer(existing);
    }
    const attempt = (existing?.attempt ?? 0) + 1;
    const record: ExecutionRecord = {
      execution_id: executionId,
      tenant_id: tenant.full,
      input,
      status: 'running',
      attempt,
      workflow_id: workflowIdOf(executionId, attempt),
      owner: randomUUID(),
      lease_until: now + leaseMs,
      steps: existing?.steps ?? {},
      revision: (existing?.revision ?? 0) + 1,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    const claimed = existing
      ? await deps.store.replaceExecution(record, existing.revision)
      : await deps.store.createExecution(record);
    if (!claimed) continue; // another start took it first: answer what it made
    if (existing) log.info('provisioning resumed', { execution: executionId, attempt, was: existing.status });
    await openTask(deps, record, leaseMs);
    if (!deps.runner) throw new Error('provisioning has no workflow runner');
    try {
      await deps.runner.start({ execution_id: executionId, tenant_id: tenant.full, attempt });
    } catch (error) {
      // Not started: the next start must not take it for running.
      const cause = `the run could not be started: ${(error as Error).message}`;
      await update(deps, tenant.full, executionId, (current) => ({
        ...current,
        status: 'failed',
        error: cause,
      }));
      await deps.events
        .append(record.workflow_id, {
          type: 'error',
          error_type: 'ProvisioningNotStarted',
          error_message: `Provisioning ${executionId} ${cause}`,
          recoverable: true,
        })
        .catch(() => undefined);
      throw error;
    }
    return answer(record);
  }
  throw new Error(`provisioning ${executionId} kept changing under this start; retry`);
}

/** Applies `change` to the execution with its revision checked, re-reading on a concurrent write. */
async function update(
  deps: ProvisioningDeps,
  tenantId: string,
  executionId: string,
  change: (record: ExecutionRecord) => ExecutionRecord,
): Promise<ExecutionRecord> {
  for (let tries = 0; tries < 10; tries++) {
    const current = await deps.store.getExecution(tenantId, executionId);
    if (!current) throw new StepFailedError(`No provisioning execution ${executionId}`);
    const next = { ...change(current), revision: current.revision + 1, updated_at: deps.now() };
    if (await deps.store.replaceExecution(next, current.revision)) return next;
  }
  throw Object.assign(new Error(`provisioning ${executionId} kept changing; retry`), { name: STEP_ERROR });
}

/** Renews the execution's lease and its task's (the run is alive). */
export async function renewLease(
  deps: ProvisioningDeps,
  tenantId: string,
  executionId: string,
): Promise<void> {
  const record = await update(deps, tenantId, executionId, (current) => ({
    ...current,
    lease_until: deps.now() + leaseOf(deps),
  }));
  await deps.events.renew(record.workflow_id, record.owner, leaseOf(deps));
}

async function report(deps: ProvisioningDeps, record: ExecutionRecord, body: EventBody): Promise<void> {
  await deps.events.append(record.workflow_id, body);
}

/**
 * The step function: runs one step of the execution (or `report_failure`). A step an earlier attempt
 * finished is reported and skipped. A definite failure throws `StepFailed`, anything else `StepError` (which
 * the definition retries), both naming the step.
 */
export async function runStep(deps: ProvisioningDeps, payload: StepPayload): Promise<Outcome> {
  if (payload.step === 'report_failure') return reportFailure(deps, payload);
  const step = payload.step;
  const record = await update(deps, payload.tenant_id, payload.execution_id, (current) => ({
    ...current,
    lease_until: deps.now() + leaseOf(deps),
  }));
  // The task's lease too: a run of the state machine has no process holding it between steps.
  await deps.events.renew(record.workflow_id, record.owner, leaseOf(deps)).catch(() => undefined);
  const done = record.steps[step];
  if (done?.status === 'completed') {
    await report(deps, record, {
      type: 'status',
      state: 'working',
      phase: step,
      message: `${step}: already done by attempt ${done.attempt}`,
    });
    if (step === 'notify') await finish(deps, record);
    return done.outcome ?? {};
  }
  await report(deps, record, { type: 'status', state: 'working', phase: step });
  await update(deps, record.tenant_id, record.execution_id, (current) => ({
    ...current,
    steps: { ...current.steps, [step]: { status: 'running', attempt: current.attempt, at: deps.now() } },
  }));
  failpoint(`provision.${step}`);
  let outcome: Outcome;
  try {
    outcome = await deps.telemetry.span(
      record.tenant_id,
      `provision.${step}`,
      { attributes: { 'tessera.execution_id': record.execution_id } },
      () => STEPS[step]({ deps, tenantId: record.tenant_id, input: record.input }),
    );
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] ?? 'failed';
    await update(deps, record.tenant_id, record.execution_id, (current) => ({
      ...current,
      steps: {
        ...current.steps,
        [step]: { status: 'failed', attempt: current.attempt, error: message, at: deps.now() },
      },
    })).catch(() => undefined);
    const failure = new Error(`${step}: ${message}`);
    failure.name = error instanceof StepFailedError ? 'StepFailed' : STEP_ERROR;
    throw failure;
  }
  const updated = await update(deps, record.tenant_id, record.execution_id, (current) => ({
    ...current,
    steps: {
      ...current.steps,
      [step]: { status: 'completed', attempt: current.attempt, outcome, at: deps.now() },
    },
  }));
  if (step === 'notify') {
    await report(deps, updated, {
      type: 'status',
      state: 'working',
      phase: 'notify',
      message: String(outcome.message ?? `Tenant ${record.tenant_id} provisioned`),
    });
    await finish(deps, updated);
  }
  return outcome;
}

/** The run succeeded: its record says so and its task ends with every step's outcome. */
async function finish(deps: ProvisioningDeps, record: ExecutionRecord): Promise<void> {
  const finished = await update(deps, record.tenant_id, record.execution_id, (current) => ({
    ...current,
    status: 'succeeded',
  }));
  const steps = Object.fromEntries(
    Object.entries(finished.steps).map(([name, state]) => [
      name,
      { status: state.status, attempt: state.attempt, outcome: state.outcome ?? null },
    ]),
  );
  await report(deps, finished, {
    type: 'complete',
    result: {
      status: 'succeeded',
      execution_id: finished.execution_id,
      tenant_id: finished.tenant_id,
      steps,
    },
    summary: `Tenant ${finished.tenant_id} provisioned in ${finished.attempt} attempt(s)`,
  });
}

/** The catch of the definition: records the failed step and ends the task with an ErrorEvent naming it. */
async function reportFailure(deps: ProvisioningDeps, payload: StepPayload): Promise<Outcome> {
  const cause = payload.error?.Cause ?? payload.error?.Error ?? 'failed';
  const record = await update(deps, payload.tenant_id, payload.execution_id, (current) => {
    const failed =
      Object.entries(current.steps).find(
        ([, state]) => state.status !== 'completed' && state.attempt === current.attempt,
      )?.[0] ??
      cause.split(':')[0] ??
      'unknown';
    return { ...current, status: 'failed', failed_step: failed, error: cause };
  });
  await deps.events.append(record.workflow_id, {
    type: 'error',
    error_type: 'ProvisioningStepFailed',
    error_message: `Step ${record.failed_step} failed: ${cause.startsWith(`${record.failed_step}: `) ? cause.slice(record.failed_step!.length + 2) : cause}`,
    recoverable: true,
  });
  return { failed_step: record.failed_step, error: cause };
}
