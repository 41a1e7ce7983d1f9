/**
 * Scheduled jobs through the local runtime: the job routes, the refused schedules and agents of issue 18, a
 * job fired by the runtime's scheduler on its minute (at most 2 s late) whose answer lands in the wiki and
 * the outbound queue, a job whose agent fails (the run's ErrorEvent, and the next run still happens), and
 * tenant delete with jobs and wiki pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobEnded, upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';
import { readEvents } from './support/sse';

let rt: RuntimeProcess;
const TENANT = 'acme:jobs';
const jobsOf = (tenant = TENANT) => `/admin/tenant/${tenant}/jobs`;

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

beforeAll(async () => {
  rt = await spawnRuntime();
  for (const tenant_id of [TENANT, 'acme:doomedjobs']) {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id })).status).toBe(201);
  }
  const done = await upload(rt.url, { tenant_id: TENANT, wait: 'true' }, [
    {
      name: 'keys.md',
      content:
        '# Keys\n\nRotate keys every ninety days.\n\nStore them in the vault of Acme Corporation in Berlin.',
    },
  ]);
  expect(done.status).toBe(200);
  await jobEnded(rt.url, done.body.job_id);
}, 180_000);

afterAll(async () => {
  await rt?.stop();
});

describe('job routes (integration)', () => {
  it('refuses schedules EventBridge cannot run, unknown agents and tenants, writing nothing', async () => {
    const base = { name: 'x', query: 'rotate keys' };
    for (const schedule of [
      '*/30 * * * * *',
      '0 0 9 * * ?',
      '0 9 1 * MON',
      'rate(0 minutes)',
      'rate(30 seconds)',
      'every minute',
    ]) {
      const refused = await call(rt.url, 'POST', jobsOf(), { ...base, schedule });
      expect(refused.status, schedule).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['body', 'schedule']);
    }
    const unknownAgent = await call(rt.url, 'POST', jobsOf(), {
      ...base,
      schedule: '* * * * *',
      agent_name: 'no_agent',
    });
    expect(unknownAgent.status).toBe(404);
    expect(unknownAgent.body).toEqual({ detail: "Agent 'no_agent' not found" });
    expect(
      (await call(rt.url, 'POST', jobsOf('acme:nobody'), { ...base, schedule: '* * * * *' })).status,
    ).toBe(404);
    expect(
      (
        await call(rt.url, 'POST', jobsOf(), {
          ...base,
          schedule: '* * * * *',
          post_actions: [{ type: 'fax' }],
        })
      ).status,
    ).toBe(422);
    expect((await call(rt.url, 'GET', jobsOf())).body).toEqual({ jobs: [], total_count: 0 });
    expect((await call(rt.url, 'GET', `${jobsOf()}/job_0000`)).status).toBe(404);
    expect((await call(rt.url, 'DELETE', `${jobsOf()}/job_0000`)).status).toBe(404);
  });

  it('fires jobs on their minute: the answer lands in the wiki and the outbound queue; a failing agent errors and runs again', async () => {
    const digest = await call(rt.url, 'POST', jobsOf(), {
      name: 'key digest',
      schedule: '* * * * *',
      query: 'rotate keys',
      agent_name: 'search_agent',
      post_actions: [{ type: 'wiki' }, { type: 'messaging' }],
    });
    expect(digest.status).toBe(201);
    expect(digest.body).toMatchObject({ name: 'key digest', agent_name: 'search_agent', last_run: null });
    expect(new Date(digest.body.next_run).getUTCSeconds()).toBe(0);
    const failing = await call(rt.url, 'POST', jobsOf(), {
      name: 'broken',
      schedule: '* * * * *',
      query: 'write code',
      agent_name: 'coding_agent',
    });
    expect(failing.status).toBe(201);
    const listed = (await call(rt.url, 'GET', jobsOf())).body;
    expect(listed.total_count).toBe(2);

    const job = (id: string) => call(rt.url, 'GET', `${jobsOf()}/${id}`).then((a) => a.body);
    const ran = await until(async () => {
      const current = await job(digest.body.job_id);
      return current.last_run?.state === 'completed' ? current : undefined;
    }, 90_000);
    const late = Date.parse(ran.last_run.started_at) - Date.parse(ran.last_run.scheduled_for);
    expect(ran.last_run.scheduled_for).toBe(digest.body.next_run);
    expect(late).toBeLessThanOrEqual(2000);
    const events = await readEvents(`${rt.url}/events/workflows/${ran.last_run.workflow_id}`);
    expect(events.at(-1)).toMatchObject({ type: 'complete' });

    const pages = (await call(rt.url, 'GET', `/wiki/index?tenant_id=${TENANT}`)).body.pages as {
      slug: string;
      kind: string;
      title: string;
    }[];
    const session = pages.find((p) => p.kind === 'session' && p.title === 'rotate keys')!;
    expect(session).toBeDefined();
    const page = (await call(rt.url, 'GET', `/wiki/topic/${session.slug}?tenant_id=${TENANT}`)).body;
    expect(page.content).toContain('Rotate keys every ninety days');
    expect(page.agent_name).toBe('search_agent');
    const outbound = (await call(rt.url, 'GET', `/admin/tenant/${TENANT}/outbound`)).body;
    expect(outbound.messages[0]).toMatchObject({
      tenant_id: TENANT,
      chat_id: null,
      source: `job:${digest.body.job_id}`,
    });
    expect(outbound.messages[0].text).toMatch(/^Job 'key digest': /);

    const broken = await until(async () => {
      const current = await job(failing.body.job_id);
      return current.last_run && current.last_run.state !== 'running' ? current : undefined;
    }, 30_000);
    expect(broken.last_run.state).toBe('failed');
    const failed = await readEvents(`${rt.url}/events/workflows/${broken.last_run.workflow_id}`);
    expect(failed.at(-1)).toMatchObject({ type: 'error' });
    // The next minute runs it again.
    const again = await until(async () => {
      const current = await job(failing.body.job_id);
      return current.run_count >= 2 ? current : undefined;
    }, 90_000);
    expect(again.last_run.workflow_id).not.toBe(broken.last_run.workflow_id);
    expect(Date.parse(again.last_run.scheduled_for) - Date.parse(broken.last_run.scheduled_for)).toBe(60_000);

    for (const id of [digest.body.job_id, failing.body.job_id]) {
      expect((await call(rt.url, 'DELETE', `${jobsOf()}/${id}`)).body).toEqual({
        status: 'deleted',
        job_id: id,
      });
      expect((await call(rt.url, 'GET', `${jobsOf()}/${id}`)).status).toBe(404);
    }
  }, 240_000);

  it('removes a deleted tenant’s jobs and wiki pages', async () => {
    const tenant = 'acme:doomedjobs';
    expect(
      (await call(rt.url, 'POST', jobsOf(tenant), { name: 'n', schedule: 'rate(5 minutes)', query: 'q' }))
        .status,
    ).toBe(201);
    expect(
      (
        await call(rt.url, 'POST', '/wiki/save', {
          tenant_id: tenant,
          query: 'q',
          response: { answer: 'a' },
          entities: ['Acme'],
        })
      ).status,
    ).toBe(200);
    expect((await call(rt.url, 'DELETE', `/admin/tenants/${tenant}`)).status).toBe(200);
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: tenant })).status).toBe(201);
    expect((await call(rt.url, 'GET', jobsOf(tenant))).body).toEqual({ jobs: [], total_count: 0 });
    expect((await call(rt.url, 'GET', `/wiki/index?tenant_id=${tenant}`)).body).toEqual({
      pages: [],
      total_count: 0,
    });
    expect((await call(rt.url, 'GET', `/admin/tenant/${tenant}/outbound`)).body).toEqual({
      messages: [],
      count: 0,
    });
  });
});
