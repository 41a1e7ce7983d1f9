/**
 * The gateway in process against the fake Bot API and a loopback stand-in for the runtime whose failures a
 * test chooses (down, slow, non-JSON): registration replies, the resolve cache, photos and their 5 MB cap,
 * 429 with retry_after, a flood of updates (32 at a time, each chat in order), and webhook mode's secret.
 */
import { closedPortUrl, type Reply, type SeenRequest, startServer, type TestServer } from '@tessera/testing';
import { type FakeBotApi, startFakeBotApi } from '@tessera/testing/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatewaySettings, REPLIES, type RunningGateway, startGateway } from '../src/index';

let api: FakeBotApi;
let runtime: TestServer;
let gateway: RunningGateway | undefined;
/** What the stand-in runtime does with an agent dispatch. */
let onProcess: (body: { agent_name: string; query: string; context: Record<string, unknown> }) => Reply;
const registered = new Map<string, string>();
let inFlight = 0;
let maxInFlight = 0;

async function fakeRuntime(seen: SeenRequest): Promise<Reply> {
  const url = new URL(seen.url, 'http://x');
  if (url.pathname === '/admin/messaging/resolve') {
    return {
      status: 200,
      json: { status: 'ok', tenant_id: registered.get(url.searchParams.get('external_user_id')!) ?? null },
    };
  }
  if (url.pathname === '/admin/messaging/register') {
    const body = seen.body as { external_user_id: string; token: string };
    // The store did not answer: the token stays claimed for the user.
    if (body.token === 'b'.repeat(32)) return { status: 503, json: { status: 'unavailable' } };
    if (body.token === 'c'.repeat(32)) return { status: 500, text: 'Internal Server Error' };
    if (body.token !== 'a'.repeat(32)) return { status: 404, json: { status: 'invalid_token' } };
    registered.set(body.external_user_id, 'acme:prod');
    return { status: 200, json: { status: 'registered', tenant_id: 'acme:prod' } };
  }
  if (url.pathname === '/admin/messaging/outbound/drain') return { status: 200, json: [] };
  if (/^\/agents\/\w+\/process$/.test(url.pathname)) {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const reply = onProcess(seen.body as never);
      if (reply === 'hang' || 'events' in reply) return reply;
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      return { ...reply, delayMs: 0 };
    } finally {
      inFlight--;
    }
  }
  return { status: 404, json: { detail: 'Not Found' } };
}

const answer = (text: string, delayMs = 0): Reply => ({
  status: 200,
  json: { status: 'completed', result: { answer: text } },
  delayMs,
});

async function start(env: Record<string, string> = {}, dispatchMs = 10_000) {
  gateway = await startGateway(
    gatewaySettings({
      TELEGRAM_BOT_TOKEN: api.token,
      TELEGRAM_API_ROOT: api.url,
      TESSERA_RUNTIME_URL: runtime.url,
      GATEWAY_OUTBOUND_POLL_SECONDS: '0.2',
      ...env,
    }),
    { timeouts: { dispatchMs, readMs: 5_000 } },
  );
  return gateway;
}

beforeEach(async () => {
  api = await startFakeBotApi();
  runtime = await startServer(fakeRuntime);
  registered.clear();
  registered.set('7', 'acme:prod');
  onProcess = (body) => answer(`echo ${body.query}`);
  inFlight = 0;
  maxInFlight = 0;
});

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await api.close();
  await runtime.close();
});

describe('the gateway against a Bot API and a runtime', () => {
  it('asks unregistered users to register, registers with a token, and caches the tenant it resolved', async () => {
    await start();
    api.say(9, 'hello');
    expect((await api.waitForSent(9, 1))[0]!.text).toBe(REPLIES.register);
    api.say(9, '/start nonsense');
    expect((await api.waitForSent(9, 2))[1]!.text).toBe(REPLIES.invalidToken);
    api.say(9, `/start ${'a'.repeat(32)}`);
    expect((await api.waitForSent(9, 3))[2]!.text).toBe(REPLIES.registered('acme:prod'));
    const resolves = () =>
      runtime.requests.filter((r) => r.url.startsWith('/admin/messaging/resolve')).length;
    const before = resolves();
    api.say(9, 'what is new');
    api.say(9, 'and then?');
    const sent = await api.waitForSent(9, 5);
    expect(sent.slice(3).map((m) => m.text)).toEqual(['echo what is new', 'echo and then?']);
    expect(resolves()).toBe(before);
    // The dispatch names the chat as its conversation.
    const dispatch = runtime.requests.find((r) => r.url === '/agents/gateway_agent/process')!;
    expect(dispatch.body).toMatchObject({
      query: 'what is new',
      context: { tenant_id: 'acme:prod', context_id: '9' },
    });
  });

  it('tells a down runtime, a slow one and a non-JSON one apart', async () => {
    await start({}, 1_000);
    onProcess = () => 'hang';
    api.say(7, 'slow');
    expect((await api.waitForSent(7, 1))[0]!.text).toBe(REPLIES.warming);
    onProcess = () => ({ status: 200, text: '<html>proxy error</html>' });
    api.say(7, '/search keys');
    expect((await api.waitForSent(7, 2))[1]!.text).toBe(REPLIES.tryAgain);
    await gateway!.stop();
    await runtime.close();
    gateway = await startGateway(
      gatewaySettings({
        TELEGRAM_BOT_TOKEN: api.token,
        TELEGRAM_API_ROOT: api.url,
        TESSERA_RUNTIME_URL: await closedPortUrl(),
      }),
    );
    api.say(7, 'anyone there?');
    expect((await api.waitForSent(7, 3))[2]!.text).toBe(REPLIES.unavailable);
    // Nobody saw the token: nothing is reserved, and the reply does not say it is.
    api.say(11, `/start ${'a'.repeat(32)}`);
    expect((await api.waitForSent(11, 1))[0]!.text).toBe(REPLIES.unavailable);
    runtime = await startServer(fakeRuntime);
  });

  it("tells a registration the runtime's store could not finish from a runtime that failed", async () => {
    await start();
    api.say(12, `/start ${'b'.repeat(32)}`);
    expect((await api.waitForSent(12, 1))[0]!.text).toBe(REPLIES.registrationUnavailable);
    api.say(12, `/start ${'c'.repeat(32)}`);
    expect((await api.waitForSent(12, 2))[1]!.text).toBe(REPLIES.tryAgain);
  });

  it('answers an unknown command with the commands, and sends text that only starts with a slash on', async () => {
    await start();
    api.say(7, '/unknowncommand foo');
    expect((await api.waitForSent(7, 1))[0]!.text).toBe(REPLIES.unknownCommand('unknowncommand'));
    api.say(7, '/etc/hosts: what is in it?');
    expect((await api.waitForSent(7, 2))[1]!.text).toBe('echo /etc/hosts: what is in it?');
    onProcess = () => ({ status: 200, json: { status: 'completed', result: null } });
    api.say(7, 'nothing to say?');
    expect((await api.waitForSent(7, 3))[2]!.text).toBe(REPLIES.noAnswer);
  });

  it('sends photos base64 with their media fields, and refuses one over 5 MB advertised or received', async () => {
    await start();
    const photo = Buffer.from('fake jpeg bytes '.repeat(100));
    const update = api.sendPhoto(7, photo, { caption: 'red car' });
    expect((await api.waitForSent(7, 1))[0]!.text).toBe('echo red car');
    const dispatch = runtime.requests.find((r) => r.url === '/agents/image_search_agent/process')!;
    expect(dispatch.body).toMatchObject({
      query: 'red car',
      context: {
        media_content_b64: photo.toString('base64'),
        media_mime: 'image/jpeg',
        media_type: 'image',
        media_file_id: update.message.photo[0].file_id,
      },
    });
    const big = 5 * 1024 * 1024 + 1;
    api.sendPhoto(7, Buffer.alloc(10), { advertised: big });
    expect((await api.waitForSent(7, 2))[1]!.text).toBe(REPLIES.photoTooLarge);
    // A photo that claims 1 KB and brings 6 MB.
    api.sendPhoto(7, Buffer.alloc(6 * 1024 * 1024, 1), { advertised: 1024 });
    expect((await api.waitForSent(7, 3))[2]!.text).toBe(REPLIES.photoTooLarge);
    expect(runtime.requests.filter((r) => r.url === '/agents/image_search_agent/process')).toHaveLength(1);
    api.sendVideo(7);
    expect((await api.waitForSent(7, 4))[3]!.text).toBe('echo Find videos similar to this video');
    expect(runtime.requests.filter((r) => r.url.endsWith('/process')).at(-1)!.body).toMatchObject({
      agent_name: 'search_agent',
      context: { media_type: 'video', media_mime: 'video/mp4' },
    });
    // Under the cap yet too large for a dispatch's base64: the largest smaller size Telegram sent goes.
    const rendition = Buffer.from('a smaller size of it '.repeat(50));
    const large = api.sendPhoto(7, Buffer.alloc(4_800_000, 2), {
      caption: 'large',
      smaller: [Buffer.from('thumbnail'), rendition],
    });
    expect((await api.waitForSent(7, 5))[4]!.text).toBe('echo large');
    expect(
      runtime.requests.filter((r) => r.url === '/agents/image_search_agent/process').at(-1)!.body,
    ).toMatchObject({
      context: {
        media_content_b64: rendition.toString('base64'),
        media_file_id: large.message.photo[1].file_id,
      },
    });
    // No smaller size: refused with a note.
    api.sendPhoto(7, Buffer.alloc(4_800_000, 3), { caption: 'alone' });
    expect((await api.waitForSent(7, 6))[5]!.text).toBe(REPLIES.photoTooLargeToSearch);
  });

  it('answers without history when the runtime cannot reach the conversation store', async () => {
    await start();
    onProcess = (body) =>
      body.context.context_id === undefined
        ? answer(`no history: ${body.query}`)
        : {
            status: 503,
            json: { detail: { error: 'service_unavailable', service: 'conversations', message: 'down' } },
          };
    api.say(7, 'still there?');
    expect((await api.waitForSent(7, 1))[0]!.text).toBe('no history: still there?');
  });

  it('waits the retry_after of a 429 and then delivers', async () => {
    await start();
    api.rateLimit('sendMessage', 1);
    const at = Date.now();
    api.say(7, 'hi');
    const [sent] = await api.waitForSent(7, 1);
    expect(sent!.text).toBe('echo hi');
    expect(sent!.at - at).toBeGreaterThanOrEqual(1000);
    expect(api.calls.filter((c) => c.method === 'sendMessage')).toHaveLength(2);
  });

  it('holds an idle long poll: a quiet second costs a poll or two, not a stream of them', async () => {
    await start();
    api.say(7, 'hello');
    await api.waitForSent(7, 1);
    const polls = () => api.calls.filter((call) => call.method === 'getUpdates').length;
    const before = polls();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(polls() - before).toBeLessThanOrEqual(2);
    // A held poll answers as soon as an update comes.
    const sentAt = Date.now();
    api.say(7, 'again');
    await api.waitForSent(7, 2);
    expect(Date.now() - sentAt).toBeLessThan(1000);
  });

  it('handles a flood 32 at a time, losing nothing and keeping each chat in order', async () => {
    for (let chat = 100; chat < 110; chat++) registered.set(String(chat), 'acme:prod');
    onProcess = (body) => answer(`echo ${body.query}`, 40);
    for (let i = 0; i < 20; i++) for (let chat = 100; chat < 110; chat++) api.say(chat, `m${i}`);
    await start();
    await api.waitForSent(undefined, 200, 120_000);
    for (let chat = 100; chat < 110; chat++) {
      expect(api.to(chat).map((m) => m.text)).toEqual(Array.from({ length: 20 }, (_, i) => `echo m${i}`));
    }
    expect(maxInFlight).toBeGreaterThan(1);
    expect(maxInFlight).toBeLessThanOrEqual(32);
  }, 180_000);

  it('in webhook mode refuses updates without the secret and handles each delivered update once', async () => {
    const gw = await start({
      GATEWAY_MODE: 'webhook',
      TELEGRAM_WEBHOOK_URL: 'http://127.0.0.1:1/hook',
      TELEGRAM_WEBHOOK_SECRET: 's3cret',
      GATEWAY_WEBHOOK_LISTEN: '127.0.0.1',
      GATEWAY_WEBHOOK_PORT: '0',
      GATEWAY_WEBHOOK_PATH: '/hook',
    });
    expect(api.webhook).toMatchObject({
      url: 'http://127.0.0.1:1/hook',
      secret_token: 's3cret',
      max_connections: 32,
    });
    // Telegram would call the public URL; here it reaches the listening server directly.
    api.webhook!.url = `http://127.0.0.1:${gw.webhookAddress!.port}/hook`;
    expect((await api.deliver(api.textUpdate(7, 'no secret'), null)).status).toBe(401);
    expect((await api.deliver(api.textUpdate(7, 'wrong secret'), 'nope')).status).toBe(401);
    const update = api.textUpdate(7, 'right secret');
    expect((await api.deliver(update)).status).toBe(200);
    // Telegram delivering it again: answered, not handled twice.
    expect((await api.deliver(update)).status).toBe(200);
    expect((await api.deliver(api.textUpdate(7, 'next'))).status).toBe(200);
    const sent = await api.waitForSent(7, 2);
    expect(sent.map((m) => m.text)).toEqual(['echo right secret', 'echo next']);
    expect(runtime.requests.filter((r) => r.url.endsWith('/process'))).toHaveLength(2);
    // A body that is not JSON: refused as the sender's mistake.
    const malformed = await fetch(api.webhook!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 's3cret' },
      body: '{not json',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ detail: 'The body is not a Telegram update: it is not JSON' });
  });
});
