import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
beforeAll(async () => {
  rt = await spawnRuntime();
  expect(
    (await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme', created_by: 'seed' })).status,
  ).toBe(201);
});
afterAll(async () => {
  await rt?.stop();
});

const long = 'x'.repeat(300);
const only = (v: string, field = 'org_id') =>
  `Invalid ${field} '${v}': only alphanumeric and underscore allowed`;

/** Ids that are malformed anywhere an org or tenant id is taken, with the 400 message they get. */
const badTenantIds: [string, string | RegExp][] = [
  ['', 'org_id cannot be empty'],
  ['ac-me', only('ac-me')],
  ['ac.me', only('ac.me')],
  ['ac me', only('ac me')],
  ['acmé', only('acmé')],
  ['acme:pr-od', only('pr-od', 'tenant_name')],
  ['a:b:c', "Invalid tenant_id format: a:b:c. Expected 'org:tenant' with single colon"],
  [':prod', 'Invalid tenant_id format: :prod. Both org and tenant parts must be non-empty'],
  ['acme:', 'Invalid tenant_id format: acme:. Both org and tenant parts must be non-empty'],
  [long, /at most 64 characters allowed \(got 300\)/],
];

async function snapshot() {
  const orgs = await call(rt.url, 'GET', '/admin/organizations');
  const orphans = await call(rt.url, 'POST', '/admin/reconcile-orphans');
  return { orgs: orgs.body, orphans: orphans.body };
}

describe('admin routes refuse bad input and change nothing (integration)', () => {
  it('POST /admin/tenants', async () => {
    const before = await snapshot();
    const missing = await call(rt.url, 'POST', '/admin/tenants', {});
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      { type: 'missing', loc: ['body', 'tenant_id'], msg: 'Field required', input: {} },
    ]);
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 7 })).body.detail[0]).toMatchObject({
      type: 'string_type',
      loc: ['body', 'tenant_id'],
    });
    expect(
      (await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'x', base_schemas: 'wiki' })).status,
    ).toBe(422);
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'x', created_by: 5 })).status).toBe(
      422,
    );
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'x', created_by: '' })).status).toBe(
      422,
    );
    expect((await call(rt.url, 'POST', '/admin/tenants', [])).status).toBe(422);
    expect((await call(rt.url, 'POST', '/admin/tenants', 'null')).status).toBe(422);
    for (const [id, message] of badTenantIds) {
      const answer = await call(rt.url, 'POST', '/admin/tenants', { tenant_id: id });
      expect(answer.status, id).toBe(400);
      if (typeof message === 'string') expect(answer.body.detail).toBe(message);
      else expect(answer.body.detail).toMatch(message);
    }
    const mismatch = await call(rt.url, 'POST', '/admin/tenants', {
      org_id: 'other',
      tenant_id: 'acme:prod',
    });
    expect(mismatch.status).toBe(400);
    expect(
      (await call(rt.url, 'POST', '/admin/tenants', { org_id: 'a-b', tenant_id: 'prod' })).body.detail,
    ).toBe(only('a-b'));
    // A bare tenant name given with its organization: empty is the name missing, not the colon format.
    expect(await call(rt.url, 'POST', '/admin/tenants', { org_id: 'ab', tenant_id: '' })).toMatchObject({
      status: 400,
      body: { detail: 'tenant_name cannot be empty' },
    });
    expect(
      (await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'x', base_schemas: ['nope'] })).status,
    ).toBe(400);
    expect(await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme:acme' })).toMatchObject({
      status: 409,
      body: { detail: 'Tenant acme:acme already exists' },
    });
    expect(await snapshot()).toEqual(before);
  });

  it('GET and DELETE /admin/tenants/{id}', async () => {
    const before = await snapshot();
    for (const [id] of badTenantIds.filter(([id]) => id !== '')) {
      for (const method of ['GET', 'DELETE']) {
        const answer = await call(rt.url, method, `/admin/tenants/${encodeURIComponent(id)}`);
        expect(answer.status, `${method} ${id}`).toBe(400);
      }
    }
    expect(await call(rt.url, 'GET', '/admin/tenants/ghost')).toMatchObject({
      status: 404,
      body: { detail: 'Tenant ghost:ghost not found' },
    });
    expect(await call(rt.url, 'DELETE', '/admin/tenants/ghost:x')).toMatchObject({
      status: 404,
      body: { detail: 'Tenant ghost:x not found' },
    });
    expect(await snapshot()).toEqual(before);
  });

  it('PUT and GET /admin/tenants/{id}/tier', async () => {
    expect((await call(rt.url, 'PUT', '/admin/tenants/acme/tier', {})).status).toBe(422);
    expect((await call(rt.url, 'PUT', '/admin/tenants/acme/tier', { tier: 5 })).status).toBe(422);
    expect((await call(rt.url, 'PUT', '/admin/tenants/acme/tier', { tier: '' })).status).toBe(422);
    expect((await call(rt.url, 'PUT', '/admin/tenants/acme/tier', { tier: 'Pro Plan!' })).status).toBe(422);
    expect((await call(rt.url, 'PUT', '/admin/tenants/a-b/tier', { tier: 'pro' })).status).toBe(400);
    expect(await call(rt.url, 'PUT', '/admin/tenants/ghost/tier', { tier: 'pro' })).toMatchObject({
      status: 404,
      body: { detail: "Tenant 'ghost:ghost' not registered." },
    });
    expect((await call(rt.url, 'GET', '/admin/tenants/acme/tier')).body.tier).toBeNull();
  });

  it('POST /admin/organizations', async () => {
    const before = await snapshot();
    expect((await call(rt.url, 'POST', '/admin/organizations', {})).body.detail[0]).toMatchObject({
      type: 'missing',
      loc: ['body', 'org_id'],
    });
    expect((await call(rt.url, 'POST', '/admin/organizations', { org_id: 1 })).status).toBe(422);
    expect((await call(rt.url, 'POST', '/admin/organizations', { org_id: 'x', org_name: '' })).status).toBe(
      422,
    );
    for (const [id, message] of badTenantIds.filter(([id]) => !id.includes(':'))) {
      const answer = await call(rt.url, 'POST', '/admin/organizations', { org_id: id });
      expect(answer.status, id).toBe(400);
      if (typeof message === 'string') expect(answer.body.detail).toBe(message);
    }
    expect((await call(rt.url, 'POST', '/admin/organizations', { org_id: 'a:b' })).body.detail).toBe(
      only('a:b'),
    );
    expect(await call(rt.url, 'POST', '/admin/organizations', { org_id: 'acme' })).toMatchObject({
      status: 409,
      body: { detail: 'Organization acme already exists' },
    });
    expect(await snapshot()).toEqual(before);
  });

  it('GET and DELETE /admin/organizations/{id}', async () => {
    const before = await snapshot();
    for (const id of ['a-b', 'a.b', 'a b', 'é', long]) {
      for (const path of [
        `/admin/organizations/${encodeURIComponent(id)}`,
        `/admin/organizations/${encodeURIComponent(id)}/tenants`,
      ]) {
        expect((await call(rt.url, 'GET', path)).status, path).toBe(400);
      }
      expect((await call(rt.url, 'DELETE', `/admin/organizations/${encodeURIComponent(id)}`)).status).toBe(
        400,
      );
    }
    for (const [method, path] of [
      ['GET', '/admin/organizations/ghost'],
      ['GET', '/admin/organizations/ghost/tenants'],
      ['DELETE', '/admin/organizations/ghost'],
    ] as const) {
      expect(await call(rt.url, method, path)).toMatchObject({
        status: 404,
        body: { detail: 'Organization ghost not found' },
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('POST /admin/reconcile-orphans validates its flags', async () => {
    const answer = await call(rt.url, 'POST', '/admin/reconcile-orphans?dry_run=maybe');
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['query', 'dry_run']);
  });
});

describe('tenant delete and running tasks (integration)', () => {
  it('records a cancellation on every running or queued task of the deleted tenant', async () => {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'busy' })).status).toBe(201);
    process.env.AWS_ENDPOINT_URL = rt.emulatorUrl;
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    const { taskEvents } = await import('@tessera/events');
    const store = taskEvents();
    await store.open({
      task_id: 'busy_wf_1',
      kind: 'workflow',
      tenant_id: 'busy:busy',
      owner: 'test',
      leaseMs: 60_000,
    });
    await store.open({
      task_id: 'busy_job_1',
      kind: 'ingestion',
      tenant_id: 'busy:busy',
      owner: 'test',
      leaseMs: 60_000,
    });
    await store.cancel('busy_wf_1', 'workflow', 'user stopped it');
    // The producers of both tasks stop once the delete told them to (a delete waits for what still works for
    // the tenant): the workflow had not got round to the user's cancel yet. Only the delete cancels the job.
    let deleting = true;
    const producers = (async () => {
      for (; deleting; await new Promise((resolve) => setTimeout(resolve, 50))) {
        if (!(await store.get('busy_job_1'))?.cancel_requested) continue;
        for (const taskId of ['busy_wf_1', 'busy_job_1']) {
          const reason = (await store.get(taskId))?.cancel_reason ?? 'cancelled';
          await store.append(taskId, { type: 'status', state: 'cancelled', message: reason });
        }
        return;
      }
    })();
    const deleted = await call(rt.url, 'DELETE', '/admin/tenants/busy');
    deleting = false;
    await producers;
    expect(deleted.status).toBe(200);
    expect((await store.get('busy_wf_1'))?.cancel_reason).toBe('user stopped it');
    expect(await store.get('busy_job_1')).toMatchObject({
      cancel_requested: true,
      cancel_reason: 'Tenant busy:busy was deleted',
    });
  });
});
