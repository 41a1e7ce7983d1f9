/**
 * Memories and instructions through the local runtime: a completed agent run leaves one memory of its tenant
 * and agent, the admin routes list and delete them, instructions are versioned without losing a concurrent
 * write and reach the system prompt the LLM receives, bad input changes nothing, tenant delete removes both.
 */
import { openAIChat, startServer, type TestServer } from '@tessera/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
let llm: TestServer;

const process_ = (tenant: string, agent: string, query: string) =>
  call(rt.url, 'POST', `/agents/${agent}/process`, { query, context: { tenant_id: tenant } });
const memoriesOf = (tenant: string, query = '') =>
  call(rt.url, 'GET', `/admin/tenant/${tenant}/memories${query}`);

/** Waits for a condition the runtime reaches on its own (a memory is stored after the answer). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  llm = await startServer(
    openAIChat(() => ({ content: { summary: 'Keys rotate every ninety days. Kept in the vault.' } })),
  );
  rt = await spawnRuntime();
  for (const tenant of ['acme', 'rival', 'doomed']) {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: tenant })).status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await rt?.stop();
  await llm?.close();
});

describe('memories (integration)', () => {
  it('stores one memory per completed run, for its tenant and agent only, the same words in two tenants', async () => {
    const query = 'how often do keys rotate';
    for (const tenant of ['acme', 'rival'])
      expect((await process_(tenant, 'search_agent', query)).status).toBe(200);
    const acme = await eventually(
      () => memoriesOf('acme', '?agent_name=search_agent'),
      (answer) => answer.body.total_count === 1,
    );
    const rival = await eventually(
      () => memoriesOf('rival'),
      (answer) => answer.body.total_count === 1,
    );
    expect(acme.status).toBe(200);
    expect(acme.body.memories[0]).toMatchObject({ agent_name: 'search_agent' });
    expect(acme.body.memories[0].content).toMatch(/^Q: how often do keys rotate\nA: /);
    expect(rival.body.memories[0].memory_id).not.toBe(acme.body.memories[0].memory_id);
    expect((await memoriesOf('acme', '?agent_name=summarizer_agent')).body).toEqual({
      memories: [],
      total_count: 0,
    });
  });

  it("writes a completed run delivered twice to the agent-runs worker once, and drops an unknown tenant's", async () => {
    process.env.TESSERA_DATA_DIR = rt.dataDir;
    process.env.TESSERA_STAGE = rt.stage;
    if (rt.emulatorUrl) process.env.AWS_ENDPOINT_URL = rt.emulatorUrl;
    process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
    const { queues, resourceName, SqsQueue } = await import('@tessera/platform');
    const queue = new SqsQueue(resourceName(queues.agentRuns));
    const message = {
      run_id: `run-${Date.now()}`,
      tenant_id: 'rival:rival',
      agent_name: 'summarizer_agent',
      query: 'when are the keys rotated',
      context: { tenant_id: 'rival' },
      result: { summary: 'Keys rotate every ninety days. Kept in the vault.' },
      completed_at: 1_700_000_000_000,
    };
    await queue.send({ ...message, tenant_id: 'ghost:ghost' });
    await queue.send(message);
    await queue.send(message);
    const written = await eventually(
      () => memoriesOf('rival', '?agent_name=summarizer_agent'),
      (answer) => answer.body.total_count >= 1,
    );
    expect(written.body.memories).toEqual([
      {
        memory_id: message.run_id,
        agent_name: 'summarizer_agent',
        content: 'Q: when are the keys rotated\nA: Keys rotate every ninety days.',
        created_at: message.completed_at,
      },
    ]);
    // Both deliveries were handled by now or soon; still one memory.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await memoriesOf('rival', '?agent_name=summarizer_agent')).body.total_count).toBe(1);
    expect((await memoriesOf('ghost')).status).toBe(404);
    // The unknown tenant's message was dropped (it can never be written), not left to be delivered again.
    const { GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
    const { sqsClient } = await import('@tessera/platform');
    const left = await eventually(
      async () =>
        (
          await sqsClient().send(
            new GetQueueAttributesCommand({
              QueueUrl: await queue.url(),
              AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
            }),
          )
        ).Attributes,
      (attributes) =>
        attributes?.ApproximateNumberOfMessages === '0' &&
        attributes.ApproximateNumberOfMessagesNotVisible === '0',
    );
    expect(left).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
    await call(rt.url, 'DELETE', '/admin/tenant/rival/memories?agent_name=summarizer_agent');
  });

  it('refuses odd agent names and unknown tenants, deleting nothing', async () => {
    for (const odd of ['unknown_agent', '../search_agent', '', 'search_agent,coding_agent', "x' OR '1'='1"]) {
      const name = encodeURIComponent(odd);
      expect((await memoriesOf('acme', `?agent_name=${name}`)).status).toBe(422);
      expect((await call(rt.url, 'DELETE', `/admin/tenant/acme/memories?agent_name=${name}`)).status).toBe(
        422,
      );
    }
    expect((await memoriesOf('nobody')).status).toBe(404);
    expect((await call(rt.url, 'DELETE', '/admin/tenant/nobody/memories')).status).toBe(404);
    expect((await memoriesOf('acme')).body.total_count).toBe(1);
  });

  it('deletes one agent’s memories, then all', async () => {
    expect((await process_('rival', 'text_analysis_agent', 'Keys rotate every ninety days.')).status).toBe(
      200,
    );
    await eventually(
      () => memoriesOf('rival'),
      (answer) => answer.body.total_count === 2,
    );
    const one = await call(rt.url, 'DELETE', '/admin/tenant/rival/memories?agent_name=text_analysis_agent');
    expect(one).toMatchObject({ status: 200, body: { deleted: 1 } });
    expect(
      (await memoriesOf('rival')).body.memories.map((m: { agent_name: string }) => m.agent_name),
    ).toEqual(['search_agent']);
    expect((await call(rt.url, 'DELETE', '/admin/tenant/rival/memories')).body).toEqual({ deleted: 1 });
    expect((await memoriesOf('rival')).body.total_count).toBe(0);
    expect((await memoriesOf('acme')).body.total_count).toBe(1);
  });
});

describe('instructions (integration)', () => {
  it("answers '' at version 0, then each write's version; concurrent writes lose no version", async () => {
    expect((await call(rt.url, 'GET', '/admin/tenant/acme/instructions')).body).toEqual({
      tenant_id: 'acme:acme',
      text: '',
      version: 0,
      updated_at: 0,
    });
    const writes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(rt.url, 'PUT', '/admin/tenant/acme/instructions', { text: `Instruction ${i}` }),
      ),
    );
    expect(writes.every((w) => w.status === 200)).toBe(true);
    expect(writes.map((w) => w.body.version).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    const latest = await call(rt.url, 'GET', '/admin/tenant/acme/instructions');
    expect(latest.body.version).toBe(12);
    expect(latest.body.text).toBe(writes.find((w) => w.body.version === 12)!.body.text);
  });

  it('refuses text over 20,000 characters and unknown tenants, changing nothing', async () => {
    const before = (await call(rt.url, 'GET', '/admin/tenant/acme/instructions')).body;
    const long = await call(rt.url, 'PUT', '/admin/tenant/acme/instructions', { text: 'x'.repeat(20_001) });
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['body', 'text']);
    expect((await call(rt.url, 'PUT', '/admin/tenant/acme/instructions', { text: 1 })).status).toBe(422);
    expect((await call(rt.url, 'PUT', '/admin/tenant/acme/instructions', {})).status).toBe(422);
    expect((await call(rt.url, 'GET', '/admin/tenant/acme/instructions')).body).toEqual(before);
    expect((await call(rt.url, 'PUT', '/admin/tenant/nobody/instructions', { text: 'x' })).status).toBe(404);
    expect((await call(rt.url, 'GET', '/admin/tenant/nobody/instructions')).status).toBe(404);
    const exact = await call(rt.url, 'PUT', '/admin/tenant/acme/instructions', { text: 'y'.repeat(20_000) });
    expect(exact).toMatchObject({ status: 200, body: { version: before.version + 1 } });
  });

  it('puts the instructions in the system prompt the LLM receives', async () => {
    const config = await call(rt.url, 'PUT', '/admin/tenants/acme:acme/config/llm', {
      model: 'openai/m',
      api_base: `${llm.url}/v1`,
    });
    expect(config.status).toBe(200);
    await call(rt.url, 'PUT', '/admin/tenant/acme/instructions', { text: 'Answer as a pirate would.' });
    const answer = await call(rt.url, 'POST', '/agents/summarizer_agent/process', {
      query: 'key rotation',
      context: { tenant_id: 'acme', text: 'Keys rotate every ninety days. They are kept in the vault.' },
    });
    expect(answer).toMatchObject({ status: 200, body: { result: { method: 'llm' } } });
    const body = llm.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    expect(body.messages.find((m) => m.role === 'system')!.content).toContain('Answer as a pirate would.');
    const summarized = await eventually(
      () => memoriesOf('acme', '?agent_name=summarizer_agent'),
      (memories) => memories.body.total_count === 1,
    );
    expect(summarized.body.memories[0].content).toBe('Q: key rotation\nA: Keys rotate every ninety days.');
  });
});

describe('tenant delete (integration)', () => {
  it("removes the tenant's memories and instructions", async () => {
    expect((await process_('doomed', 'search_agent', 'anything at all')).status).toBe(200);
    await eventually(
      () => memoriesOf('doomed'),
      (answer) => answer.body.total_count === 1,
    );
    expect(
      (await call(rt.url, 'PUT', '/admin/tenant/doomed/instructions', { text: 'Be brief.' })).status,
    ).toBe(200);
    const deleted = await call(rt.url, 'DELETE', '/admin/tenants/doomed:doomed');
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_schemas).toContain('agent_memories_doomed_doomed');
    expect((await memoriesOf('doomed')).status).toBe(404);
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'doomed' })).status).toBe(201);
    expect((await memoriesOf('doomed')).body).toEqual({ memories: [], total_count: 0 });
    expect((await call(rt.url, 'GET', '/admin/tenant/doomed/instructions')).body.version).toBe(0);
  });
});
