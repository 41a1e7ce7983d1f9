/**
 * The Telegram gateway end to end: the local runtime and `npm run gateway` as child processes, a fake Bot API
 * on loopback speaking Telegram's HTTP API. A user registers with an invite, searches, uses every command,
 * sends a photo, and gets a scheduled job's notice and a `/messaging/send`; 50 users racing for one token
 * through the gateway register exactly one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { textImage } from '@tessera/testing/media';
import { type FakeBotApi, startFakeBotApi } from '@tessera/testing/telegram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobEnded, upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const TENANT = 'tgorg:main';
const USER = 501;
const root = path.resolve(import.meta.dirname, '..');
let rt: RuntimeProcess;
let api: FakeBotApi;
let gateway: ChildProcess;
let gatewayOutput = '';

function spawnGateway(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/gateway/src/main.ts'], {
    cwd: root,
    env: { ...process.env, TESSERA_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    const onOutput = (chunk: Buffer) => {
      gatewayOutput += chunk.toString();
      if (gatewayOutput.includes('gateway running')) resolve(child);
    };
    child.stdout!.on('data', onOutput);
    child.stderr!.on('data', onOutput);
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}:\n${gatewayOutput}`)));
  });
}

const invite = async () =>
  (await call(rt.url, 'POST', '/admin/messaging/invite', { tenant_id: TENANT })).body.token;

/** The user's next reply: sends the text and waits for one more message to the chat. */
async function ask(text: string, user = USER): Promise<string> {
  const before = api.to(user).length;
  api.say(user, text);
  const sent = await api.waitForSent(user, before + 1, 60_000);
  return sent[before]!.text;
}

beforeAll(async () => {
  rt = await spawnRuntime();
  expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: TENANT })).status).toBe(201);
  const done = await upload(rt.url, { tenant_id: TENANT, wait: 'true' }, [
    { name: 'keys.md', content: '# Keys\n\nRotate keys every ninety days.\n\nStore them in the vault.' },
  ]);
  await jobEnded(rt.url, done.body.job_id);
  api = await startFakeBotApi();
  gateway = await spawnGateway({
    TELEGRAM_BOT_TOKEN: api.token,
    TELEGRAM_API_ROOT: api.url,
    TESSERA_RUNTIME_URL: rt.url,
    GATEWAY_OUTBOUND_POLL_SECONDS: '0.5',
  });
}, 180_000);

afterAll(async () => {
  gateway?.kill('SIGINT');
  await rt?.stop();
  await api?.close();
});

describe('the gateway against the local runtime', () => {
  it('registers a user with an invite and answers every command', async () => {
    expect(await ask('hello')).toMatch(/^Please register first/);
    expect(await ask(`/start ${'0'.repeat(32)}`)).toMatch(/unknown, expired, already used/);
    expect(await ask(`/start ${await invite()}`)).toBe(
      `Registered: your messages now go to ${TENANT}. Send /help to see what I can do.`,
    );
    expect(await ask('/help')).toContain('/wiki save | search <query>');
    expect(await ask('/search rotate keys')).toContain('keys.md');
    expect(await ask('/summarize key rotation')).toMatch(/Rotate keys every ninety days/);
    expect(await ask('/report key rotation')).toContain('keys.md');
    // Generation needs an LLM endpoint, which this tenant has none of: the user is told so.
    expect(await ask('/research why rotate keys')).toBe(`No LLM endpoint is configured for tenant ${TENANT}`);
    expect(await ask('/code a key rotation script')).toBe(
      `No LLM endpoint is configured for tenant ${TENANT}`,
    );
    expect(await ask('/search')).toBe('Usage: /search <query>');
    expect(await ask('how often do we rotate keys?')).toMatch(/Rotate keys every ninety days|keys\.md/);
    expect(await ask('/wiki save')).toMatch(/saved to the wiki automatically/);
    await call(rt.url, 'POST', '/wiki/save', {
      tenant_id: TENANT,
      query: 'key rotation',
      response: { answer: 'Rotate keys every ninety days.' },
      entities: ['Key Vault'],
    });
    expect(await ask('/wiki search rotation')).toContain('key rotation');
    expect(await ask('/wiki index')).toMatch(/pages:/);
    expect(await ask('/wiki topic key_vault')).toContain('Key Vault');
    expect(await ask('/wiki topic no_such_page')).toBe(
      "Could not do that: Wiki page 'no_such_page' not found",
    );
    expect(await ask('/wiki lint')).toMatch(/^orphan: /);
    expect(await ask('/wiki')).toMatch(/^Usage: \/wiki/);
    expect(await ask('/instructions')).toBe('No instructions are set.');
    expect(await ask('/instructions Answer briefly.')).toBe('Instructions (version 1):\nAnswer briefly.');
    expect(await ask('/memories')).toMatch(/memories; the latest:/);
    expect(await ask('/jobs')).toBe('No scheduled jobs.');
    expect(await ask('/nonsense')).toContain('Commands:');
    // The runtime kept the chat's turns under its chat id.
    const threads = (await call(rt.url, 'GET', `/conversations?tenant_id=${TENANT}`)).body.threads;
    expect(threads.map((t: { context_id: string }) => t.context_id)).toContain(String(USER));
  }, 240_000);

  it('sends a photo to the image search agent, which reads its text', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gateway-photo-'));
    const photo = readFileSync(await textImage(dir, 'keys.jpg', ['ROTATE KEYS']));
    const before = api.to(USER).length;
    api.sendPhoto(USER, photo);
    const reply = (await api.waitForSent(USER, before + 1, 60_000))[before]!.text;
    // The photo reached the image agent: it read its text. The tenant has no images to find.
    expect(reply).toBe('Text in the photo: ROTATE KEYS\n\nNo results.');
  }, 90_000);

  it("delivers a scheduled job's notice and a /messaging/send to the linked chat", async () => {
    const sentAt = Date.now();
    expect(
      (await call(rt.url, 'POST', '/messaging/send', { tenant_id: TENANT, text: 'Maintenance at 9.' })).body,
    ).toEqual({
      queued: 1,
    });
    const before = api.to(USER).length;
    const notice = (await api.waitForSent(USER, before + 1, 30_000))[before]!;
    expect(notice.text).toBe('Maintenance at 9.');
    // Within the poll interval (0.5 s) and a second.
    expect(notice.at - sentAt).toBeLessThan(1500 + 3000);
    const job = await call(rt.url, 'POST', `/admin/tenant/${TENANT}/jobs`, {
      name: 'digest',
      schedule: '* * * * *',
      query: 'rotate keys',
      agent_name: 'search_agent',
      post_actions: [{ type: 'messaging' }],
    });
    expect(job.status).toBe(201);
    const all = await api.waitForSent(USER, before + 2, 120_000);
    expect(all[before + 1]!.text).toMatch(/^Job 'digest': /);
    await call(rt.url, 'DELETE', `/admin/tenant/${TENANT}/jobs/${job.body.job_id}`);
  }, 180_000);

  it('registers exactly one of 50 users racing for one token', async () => {
    const token = await invite();
    const users = Array.from({ length: 50 }, (_, i) => 7000 + i);
    for (const user of users) api.say(user, `/start ${token}`);
    for (const user of users) await api.waitForSent(user, 1, 120_000);
    const replies = users.map((user) => api.to(user)[0]!.text);
    expect(replies.filter((r) => r.startsWith('Registered:'))).toHaveLength(1);
    expect(replies.filter((r) => /unknown, expired, already used/.test(r))).toHaveLength(49);
  }, 180_000);
});
