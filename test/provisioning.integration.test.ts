/**
 * Tenant provisioning through the local runtime: the 12-step workflow run in process from the state
 * machine's definition, every step on the workflow task's events, a repeated start answering the same
 * execution, a failed step retried without redoing the finished ones, a run killed half-way finished by the
 * next start, and the storage quota and tier it sets taking effect.
 */
import { PROVISION_STEPS } from '@tessera/provisioning/definition';
import { closedPortUrl, type OtlpReceiver, startOtlpReceiver } from '@tessera/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime, tempDataDir } from './support/runtime';
import { readEvents, type StreamEvent } from './support/sse';

const STEPS = PROVISION_STEPS;
const LEASE = { TESSERA_PROVISION_LEASE_MS: '1500' };

let rt: RuntimeProcess;
let collector: OtlpReceiver;

/** The steps reported, in order (notify reports its start and then its notification). */
const phases = (events: StreamEvent[]) =>
  events
    .filter((event) => event.type === 'status' && STEPS.includes(event.phase))
    .map((event) => event.phase)
    .filter((phase, index, all) => phase !== all[index - 1]);

async function provision(base: string, tenant: string, body: Record<string, unknown>) {
  const started = await call(base, 'POST', `/admin/tenants/${tenant}/provision`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return { started: started.body, events: await readEvents(`${base}${started.body.events_url}`) };
}

beforeAll(async () => {
  collector = await startOtlpReceiver();
  rt = await spawnRuntime({ env: { ...LEASE, TESSERA_TELEMETRY_URL: collector.url } });
  for (const tenant of ['acme:prod', 'beta:prod', 'Upper:Case']) {
    const created = await call(rt.url, 'POST', '/admin/tenants', {
      tenant_id: tenant,
      base_schemas: ['document_text'],
    });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await rt?.stop();
  await collector?.close();
});

describe('provisioning through the runtime (integration)', () => {
  it('runs the twelve steps, reports each, and sets the tier, the quota and the telemetry project', async () => {
    const { started, events } = await provision(rt.url, 'acme:prod', {
      tier: 'pro',
      cpu_quota: 1,
      memory_quota: 512,
      storage_quota: 400,
    });
    expect(started).toMatchObject({
      status: 'running',
      events_url: `/events/workflows/${started.workflow_id}`,
    });
    expect(phases(events)).toEqual([...STEPS]);
    expect(events.at(-2)).toMatchObject({
      type: 'status',
      phase: 'notify',
      message: 'Tenant acme:prod provisioned',
    });
    const last = events.at(-1)!;
    expect(last.type).toBe('complete');
    expect(last.result.status).toBe('succeeded');
    expect(Object.keys(last.result.steps).sort()).toEqual([...STEPS].sort());
    expect(last.result.steps.deploy_schemas.outcome).toEqual({
      profiles: ['document_text_semantic'],
      schemas: ['document_text_acme_prod'],
    });
    expect(last.result.steps.create_namespace.outcome.prefix).toBe('tenants/acme:prod/');
    expect(last.result.steps.verify_tenant.outcome.verified).toEqual([
      { profile: 'document_text_semantic', schema: 'document_text_acme_prod', documents: 0 },
    ]);
    expect(last.result.steps.initialize_memory.outcome.schema).toBe('agent_memories_acme_prod');
    expect((await call(rt.url, 'GET', '/admin/tenants/acme:prod/tier')).body.tier).toBe('pro');
    expect(collector.spans.find((span) => span.name === 'telemetry.probe')?.resource).toMatchObject({
      'openinference.project.name': 'tessera-acme:prod',
    });

    // The same provisioning again: the same execution, already done.
    const again = await call(rt.url, 'POST', '/admin/tenants/acme:prod/provision', {
      storage_quota: 400,
      memory_quota: 512,
      cpu_quota: 1,
      tier: 'pro',
    });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ ...started, status: 'succeeded' });

    // The storage quota holds across uploads.
    const small = await upload(rt.url, { tenant_id: 'acme:prod' }, [
      { name: 'a.txt', content: 'x'.repeat(300) },
    ]);
    expect(small.status).toBe(202);
    const over = await upload(rt.url, { tenant_id: 'acme:prod' }, [
      { name: 'b.txt', content: 'y'.repeat(200) },
    ]);
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ detail: "Tenant 'acme:prod' storage quota of 400 bytes exceeded" });
    // A presigned upload counts its declared size (the PUT is signed for it): no way around the quota.
    const presigned = await call(rt.url, 'POST', '/ingestion/uploads', {
      tenant_id: 'acme:prod',
      filename: 'big.md',
      size: 200,
    });
    expect(presigned.status).toBe(413);
    expect(presigned.body).toEqual({ detail: "Tenant 'acme:prod' storage quota of 400 bytes exceeded" });
    expect(
      (
        await call(rt.url, 'POST', '/ingestion/uploads', {
          tenant_id: 'acme:prod',
          filename: 'ok.md',
          size: 50,
        })
      ).status,
    ).toBe(201);
  });

  it('reports the failed step, then a repeated start retries it without redoing the finished ones', async () => {
    await call(rt.url, 'PUT', '/admin/tenants/beta:prod/config/telemetry', {
      collector_url: await closedPortUrl(),
    });
    const first = await provision(rt.url, 'beta:prod', {});
    expect(phases(first.events)).toEqual(STEPS.slice(0, 4));
    const failure = first.events.at(-1)!;
    expect(failure).toMatchObject({ type: 'error', error_type: 'ProvisioningStepFailed' });
    expect(failure.error_message).toMatch(
      /^Step create_telemetry_project failed: telemetry collector at http:\/\/127\.0\.0\.1:\d+ /,
    );

    await call(rt.url, 'PUT', '/admin/tenants/beta:prod/config/telemetry', { collector_url: collector.url });
    const second = await provision(rt.url, 'beta:prod', {});
    expect(second.started.execution_id).toBe(first.started.execution_id);
    expect(second.started.workflow_id).not.toBe(first.started.workflow_id);
    expect(phases(second.events)).toEqual([...STEPS]);
    const skipped = second.events.filter((event) => /already done by attempt 1/.test(event.message ?? ''));
    expect(skipped.map((event) => event.phase)).toEqual(STEPS.slice(0, 3));
    expect(second.events.at(-1)!.result.steps.create_telemetry_project.attempt).toBe(2);
  });

  it('fails the first step for a tenant id provisioning cannot use, and refuses bad input', async () => {
    const { events } = await provision(rt.url, 'Upper:Case', {});
    expect(phases(events)).toEqual(['validate_tenant_id']);
    expect(events.at(-1)!.error_message).toBe(
      'Step validate_tenant_id failed: Invalid tenant id for provisioning: Upper:Case',
    );
    expect((await call(rt.url, 'POST', '/admin/tenants/nobody:here/provision', {})).status).toBe(404);
    for (const body of [
      { cpu_quota: 0 },
      { storage_quota: 'big' },
      { profiles: [] },
      { extra: 1 },
      { tier: 'PRO' },
    ]) {
      expect((await call(rt.url, 'POST', '/admin/tenants/acme:prod/provision', body)).status).toBe(422);
    }
    // A profile the tenant does not have is refused before anything is written.
    const unknown = await call(rt.url, 'POST', '/admin/tenants/acme:prod/provision', {
      profiles: ['document_text_semantic', 'no_such_profile'],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe("Profile 'no_such_profile' not found for tenant 'acme:prod'");
  });
});

describe('a provisioning killed half-way (integration)', () => {
  it('is finished by the next start once its lease lapsed', async () => {
    const dataDir = tempDataDir();
    const env = { ...LEASE, TESSERA_TELEMETRY_URL: collector.url };
    const doomed = await spawnRuntime({
      dataDir,
      env: { ...env, TESSERA_FAILPOINTS: 'provision.initialize_memory' },
    });
    expect(
      (
        await call(doomed.url, 'POST', '/admin/tenants', {
          tenant_id: 'kill:me',
          base_schemas: ['document_text'],
        })
      ).status,
    ).toBe(201);
    const died = new Promise((resolve) => doomed.child.once('exit', resolve));
    const started = await call(doomed.url, 'POST', '/admin/tenants/kill:me/provision', {});
    expect(started.status).toBe(202);
    // The failpoint kills the runtime as the step starts, as a power cut would.
    await died;
    expect(doomed.child.signalCode).toBe('SIGKILL');

    const restarted = await spawnRuntime({ dataDir, env });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1600));
      const resumed = await call(restarted.url, 'POST', '/admin/tenants/kill:me/provision', {});
      expect(resumed.status).toBe(202);
      expect(resumed.body.execution_id).toBe(started.body.execution_id);
      expect(resumed.body.workflow_id).not.toBe(started.body.workflow_id);
      const events = await readEvents(`${restarted.url}${resumed.body.events_url}`);
      expect(events.at(-1)!.type).toBe('complete');
      const redone = events.filter((event) => event.phase === 'initialize_memory');
      expect(redone).toHaveLength(1);
      expect(redone[0]!.message).toBeUndefined();
      expect(
        events.filter((event) => /already done/.test(event.message ?? '')).map((event) => event.phase),
      ).toEqual(STEPS.slice(0, 6));
    } finally {
      await restarted.stop();
    }
  });
});
