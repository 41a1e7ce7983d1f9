/**
 * Messaging figures through the local runtime and the gateway (in process) against the fake Bot API on
 * loopback: plain-text updates handled per second (each a gateway_agent dispatch naming its chat as the
 * conversation; target ≥ 100/s), the registration race (50 concurrent registrations of one token, 20 rounds:
 * exactly one registered every time), and the outbound latency from `/messaging/send` to `sendMessage`
 * (target ≤ poll interval + 1 s).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gatewaySettings, startGateway } from '@tessera/gateway';
import { startFakeBotApi } from '@tessera/testing/telegram';
import { startRuntime } from './admin.bench';

const UPDATES = Number(process.env.BENCH_MESSAGING_UPDATES ?? 600);
const USERS = 50;
const ROUNDS = Number(process.env.BENCH_MESSAGING_ROUNDS ?? 20);
const POLL_SECONDS = 1;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Connections the runtime reset before they opened (its accept queue full on a loaded machine), sent again. */
let resetConnects = 0;

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    } catch (error) {
      const cause = (error as { cause?: { code?: string; syscall?: string } }).cause;
      // Refused at connect: the request never reached the server, so sending it again changes nothing.
      if (attempt < 3 && cause?.syscall === 'connect' && cause.code === 'ECONNRESET') {
        resetConnects++;
        continue;
      }
      throw error;
    }
  }
}

/**
 * The gateway's own rate: the same flood against a loopback stand-in of the runtime that resolves every user
 * and answers every dispatch at once, so only the gateway and the Bot API remain.
 */
async function gatewayOnlyRate(): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.startsWith('/admin/messaging/resolve'))
        res.end('{"status":"ok","tenant_id":"bench:chat"}');
      else if (req.url?.startsWith('/admin/messaging/outbound/drain')) res.end('[]');
      else res.end('{"status":"completed","agent":"gateway_agent","result":{"answer":"ok"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const api = await startFakeBotApi();
  const gateway = await startGateway(
    gatewaySettings({
      TELEGRAM_BOT_TOKEN: api.token,
      TELEGRAM_API_ROOT: api.url,
      TESSERA_RUNTIME_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    }),
  );
  try {
    for (let user = 1; user <= USERS; user++) api.say(user, 'warm up');
    await api.waitForSent(undefined, USERS, 60_000);
    const started = performance.now();
    for (let i = 0; i < UPDATES; i++) api.say(1 + (i % USERS), `m${i}`);
    await api.waitForSent(undefined, USERS + UPDATES, 120_000);
    return UPDATES / ((performance.now() - started) / 1000);
  } finally {
    await gateway.stop();
    await api.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

async function memoryCount(url: string, tenant: string): Promise<number> {
  const response = await fetch(`${url}/admin/tenant/${encodeURIComponent(tenant)}/memories?limit=1`);
  return ((await response.json()) as { total_count: number }).total_count;
}

async function sessionCount(url: string, tenant: string): Promise<number> {
  const response = await fetch(`${url}/wiki/index?tenant_id=${encodeURIComponent(tenant)}`);
  const { pages } = (await response.json()) as { pages: { kind: string }[] };
  return pages.filter((page) => page.kind === 'session').length;
}

export async function messagingBench(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-messaging-bench-'));
  // Without the web client beside it: its port may be another process's.
  const runtime = await startRuntime(dataDir, { TESSERA_WEB: 'off' });
  const api = await startFakeBotApi();
  const tenant = 'bench:chat';
  try {
    await post(`${runtime.url}/admin/tenants`, { tenant_id: tenant });
    const invite = async () =>
      (await post(`${runtime.url}/admin/messaging/invite`, { tenant_id: tenant })).body.token;

    // The registration race.
    let exact = 0;
    const raceMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const token = await invite();
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          post(`${runtime.url}/admin/messaging/register`, {
            platform: 'telegram',
            external_user_id: `race${round}_${i}`,
            token,
          }),
        ),
      );
      raceMs.push(performance.now() - started);
      if (answers.filter((a) => a.status === 200).length === 1) exact++;
    }
    raceMs.sort((a, b) => a - b);

    // Users of the update flood, registered through the API.
    for (let user = 1; user <= USERS; user++) {
      await post(`${runtime.url}/admin/messaging/register`, {
        platform: 'telegram',
        external_user_id: String(user),
        token: await invite(),
      });
    }
    const gateway = await startGateway(
      gatewaySettings({
        TELEGRAM_BOT_TOKEN: api.token,
        TELEGRAM_API_ROOT: api.url,
        TESSERA_RUNTIME_URL: runtime.url,
        GATEWAY_OUTBOUND_POLL_SECONDS: String(POLL_SECONDS),
      }),
    );
    try {
      // Warm-up: one turn per user (their tenant resolved and cached, the conversation rows created).
      for (let user = 1; user <= USERS; user++) api.say(user, 'warm up');
      await api.waitForSent(undefined, USERS, 120_000);
      const before = api.sent.length;
      const cpuBefore = runtime.cpuMs();
      const started = performance.now();
      for (let i = 0; i < UPDATES; i++) api.say(1 + (i % USERS), `how often are keys rotated ${i}`);
      await api.waitForSent(undefined, before + UPDATES, 300_000);
      const seconds = (performance.now() - started) / 1000;
      const cpuAfter = runtime.cpuMs();
      const cpuPerUpdate =
        cpuBefore === undefined || cpuAfter === undefined
          ? ''
          : `; runtime CPU ${((cpuAfter - cpuBefore) / UPDATES).toFixed(1)} ms an update`;
      // What each run leaves (its memory, its wiki filing) is written off the answer's path: the time until
      // the last is, and the runtime's CPU an update for the answers and the writing together.
      const runs = USERS + UPDATES;
      while ((await memoryCount(runtime.url, tenant)) < runs) await sleep(100);
      // A run's filing follows its memory: the sessions are counted once their number holds for a second.
      let sessions = await sessionCount(runtime.url, tenant);
      let recordedAt = performance.now();
      let cpuRecorded = runtime.cpuMs();
      for (let held = 0; held < 10; held++) {
        await sleep(100);
        const now = await sessionCount(runtime.url, tenant);
        if (now === sessions) continue;
        [sessions, recordedAt, cpuRecorded, held] = [now, performance.now(), runtime.cpuMs(), 0];
      }
      const recordedSeconds = (recordedAt - started) / 1000;
      const recorded = `every run's memory written, and ${sessions} sessions filed, ${recordedSeconds.toFixed(1)} s after the flood began${
        cpuBefore === undefined || cpuRecorded === undefined
          ? ''
          : `; runtime CPU ${((cpuRecorded - cpuBefore) / UPDATES).toFixed(1)} ms an update with it`
      }`;

      // Outbound latency.
      const latencies: number[] = [];
      for (let i = 0; i < 10; i++) {
        const count = api.to(1).length;
        const sentAt = Date.now();
        await post(`${runtime.url}/messaging/send`, { tenant_id: tenant, text: `notice ${i}` });
        const got = await api.waitForSent(1, count + 1, 30_000);
        latencies.push(got[count]!.at - sentAt);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * POLL_SECONDS * 1000));
      }
      latencies.sort((a, b) => a - b);

      console.log('\nMessaging (local runtime, fake Bot API on loopback)');
      console.log(
        `plain-text updates (gateway_agent, ${USERS} chats)     ${(UPDATES / seconds).toFixed(1)} updates/s (${UPDATES} in ${seconds.toFixed(1)} s${cpuPerUpdate}; target ≥ 100/s)`,
      );
      console.log(`  ${recorded}`);
      console.log(
        `plain-text updates, runtime answering at once         ${(await gatewayOnlyRate()).toFixed(1)} updates/s (the gateway and the Bot API alone)`,
      );
      if (ROUNDS > 0)
        console.log(
          `registration race (50 at once, ${ROUNDS} rounds)        exactly one registered in ${exact}/${ROUNDS}; p50 ${percentile(raceMs, 50).toFixed(0)} ms, max ${raceMs.at(-1)!.toFixed(0)} ms a round${resetConnects ? ` (${resetConnects} connects reset and sent again)` : ''}`,
        );
      console.log(
        `/messaging/send → sendMessage (poll ${POLL_SECONDS} s)            p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, max ${latencies.at(-1)} ms (target ≤ ${POLL_SECONDS * 1000 + 1000} ms)`,
      );
    } finally {
      await gateway.stop();
    }
  } finally {
    await api.close();
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
