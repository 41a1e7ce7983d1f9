/**
 * Web client figures: the first page's bundle (gzip, the graph explorer's chunk apart), first contentful
 * paint from the local web server in Chromium, the latency the web server adds to a server-sent event
 * stream (each event timed on a direct subscription and a forwarded one at once), and the web server's
 * memory idle, after page loads, and holding open streams. The web server runs as its own process
 * (`npm run web`), against a real runtime for the page loads and a loopback event source for the streams.
 * And the web server's cold start as the Lambda function stacks/web.ts deploys: its bundle imported in a
 * fresh Node process, then its first request.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { CHROMIUM } from '../test/support/browser';
import { spawnRuntime } from '../test/support/runtime';

const root = path.resolve(import.meta.dirname, '..');
const execFileAsync = promisify(execFile);
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
/** CPU time a process used, in ms (user + system). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/** Starts `npm run web`'s entry against `runtimeUrl`; resolves with its URL once it listens. */
function spawnWeb(runtimeUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/web-server/src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', TESSERA_RUNTIME_URL: runtimeUrl, TESSERA_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /Tessera web client on (http:\/\/\S+)/.exec(output);
      if (match) resolve({ url: match[1]!, child });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`web server exited with ${code}:\n${output}`)));
  });
}

/** One cold start of the web server's Lambda bundle: import, first `/healthz`, and the process's RSS. */
const COLD_START = `
globalThis.awslambda = {
  streamifyResponse: (handler) => handler,
  HttpResponseStream: { from: (stream) => stream },
};
const { Writable } = await import('node:stream');
const started = performance.now();
const { webServer } = await import(process.argv[1]);
const imported = performance.now();
const sink = new Writable({ write(_chunk, _encoding, done) { done(); } });
await webServer(
  { version: '2.0', rawPath: '/healthz', rawQueryString: '', headers: { host: 'web' },
    requestContext: { http: { method: 'GET', path: '/healthz', sourceIp: '127.0.0.1' } }, isBase64Encoded: false },
  sink,
  { getRemainingTimeInMillis: () => 900000 },
);
const answered = performance.now();
const rss = Number(/VmRSS:\\s+(\\d+)/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
process.stdout.write(JSON.stringify({ importMs: imported - started, firstMs: answered - imported, rss }));
`;

async function lambdaColdStarts(runs: number) {
  const { bundleHandlerModules } = await import('@tessera/stacks');
  const bundle = bundleHandlerModules(['web/server']).get('web/server')!;
  const entry = path.join(bundle.dir, 'index.mjs');
  const samples: { importMs: number; firstMs: number; rss: number; wallMs: number }[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const { stdout } = await execFileAsync(
      process.execPath,
      ['--input-type=module', '-e', COLD_START, entry],
      {
        cwd: bundle.dir,
        env: { PATH: process.env.PATH ?? '', TESSERA_RUNTIME_URL: 'http://127.0.0.1:9' },
      },
    );
    samples.push({ ...JSON.parse(stdout), wallMs: performance.now() - started });
  }
  return { bytes: bundle.bytes, samples };
}

/** The files the entry page loads before anything else: its script, styles and preloads (gzip, level 9). */
function firstPage(dist: string) {
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const assets = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((match) => match[1]!);
  const gzip = (file: string) => gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length;
  const first = ['index.html', ...assets];
  const lazy = readdirSync(path.join(dist, 'assets'))
    .filter((file) => /\.(js|css)$/.test(file) && !assets.includes(`assets/${file}`))
    .map((file) => `assets/${file}`);
  return {
    files: first.map((file) => ({ file, raw: statSync(path.join(dist, file)).size, gzip: gzip(file) })),
    lazy: lazy.map((file) => ({ file, raw: statSync(path.join(dist, file)).size, gzip: gzip(file) })),
  };
}

/** A loopback event source: every stream gets each event as it is sent. */
async function eventSource() {
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    streams.add(res);
    req.on('close', () => streams.delete(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get open() {
      return streams.size;
    },
    send(id: number) {
      for (const res of streams) res.write(`id: ${id}\ndata: {"n":${id}}\n\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Reads a stream, calling `onEvent(id, receivedAt)` per frame, until aborted. */
async function subscribe(url: string, onEvent: (id: number, at: number) => void, signal: AbortSignal) {
  try {
    const response = await fetch(url, { signal });
    const reader = response.body!.getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const at = performance.now();
      buffer += Buffer.from(value).toString();
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const id = /^id: (\d+)$/m.exec(buffer.slice(0, cut));
        if (id) onEvent(Number(id[1]), at);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf('\n\n');
      }
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
  }
}

export async function webBench(): Promise<void> {
  const { ensureClientBuild, defaultClientDir } = await import('@tessera/web-server');
  const built = await ensureClientBuild(defaultClientDir);
  const bundle = firstPage(defaultClientDir);
  const firstGzip = bundle.files.reduce((sum, file) => sum + file.gzip, 0);
  console.log(`\nweb: client bundle (${built === 'built' ? 'just built' : 'build up to date'})`);
  for (const file of bundle.files)
    console.log(`  first page  ${file.file}: ${kb(file.raw)} raw, ${kb(file.gzip)} gzip`);
  for (const file of bundle.lazy)
    console.log(`  on demand   ${file.file}: ${kb(file.raw)} raw, ${kb(file.gzip)} gzip`);
  console.log(`  first page without the graph explorer: ${kb(firstGzip)} gzip (target ≤ 300 KB)`);

  const cold = await lambdaColdStarts(10);
  const of = (key: 'importMs' | 'firstMs' | 'wallMs') => cold.samples.map((sample) => sample[key]);
  console.log(`web: the web server's Lambda bundle (${kb(cold.bytes)}), cold starts in fresh Node processes`);
  console.log(
    `  import: median ${percentile(of('importMs'), 50).toFixed(0)} ms, p95 ${percentile(of('importMs'), 95).toFixed(0)} ms; first request: median ${percentile(of('firstMs'), 50).toFixed(1)} ms; whole process (Node's start included): median ${percentile(of('wallMs'), 50).toFixed(0)} ms; RSS ${mb(
      percentile(
        cold.samples.map((s) => s.rss),
        50,
      ),
    )}`,
  );

  const runtime = await spawnRuntime({ env: { TESSERA_LOG_LEVEL: 'error' } });
  const source = await eventSource();
  const web = await spawnWeb(runtime.url);
  const streamWeb = await spawnWeb(source.url);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  try {
    await fetch(`${runtime.url}/admin/tenants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: 'bench:web', base_schemas: ['document_text'] }),
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idle = rss(web.child.pid!);

    // First contentful paint: each load in a fresh context (empty cache), then reloads with a warm cache.
    const loads = 15;
    // The paint entry may land after the load event: wait for it.
    const paint = async (page: import('playwright-core').Page) =>
      page.evaluate<number>(`new Promise((resolve) => new PerformanceObserver((list, observer) => {
        const entry = list.getEntriesByName('first-contentful-paint')[0];
        if (entry) { observer.disconnect(); resolve(entry.startTime); }
      }).observe({ type: 'paint', buffered: true }))`);
    const cold: number[] = [];
    const coldLoad: number[] = [];
    for (let i = 0; i < loads; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${web.url}/search?tenant=bench:web`, { waitUntil: 'load' });
      await page.getByRole('heading', { name: 'Search' }).waitFor();
      cold.push(await paint(page));
      coldLoad.push(
        await page.evaluate<number>("performance.getEntriesByType('navigation')[0].loadEventEnd"),
      );
      await context.close();
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${web.url}/search?tenant=bench:web`);
    const warm: number[] = [];
    for (let i = 0; i < loads; i++) {
      await page.reload({ waitUntil: 'load' });
      warm.push(await paint(page));
    }
    await context.close();
    const afterLoads = rss(web.child.pid!);
    console.log(`web: first load from the local web server in Chromium (${loads} loads each)`);
    console.log(
      `  first contentful paint, empty cache: median ${percentile(cold, 50).toFixed(0)} ms, p95 ${percentile(cold, 95).toFixed(0)} ms (target ≤ 1000 ms); load event median ${percentile(coldLoad, 50).toFixed(0)} ms`,
    );
    console.log(
      `  first contentful paint, warm cache: median ${percentile(warm, 50).toFixed(0)} ms, p95 ${percentile(warm, 95).toFixed(0)} ms`,
    );

    // SSE forwarding overhead: each event timed on a direct and a forwarded subscription at once.
    const overhead = async (pairs: number, events: number) => {
      const direct = new Map<string, number>();
      const forwarded = new Map<string, number>();
      const controller = new AbortController();
      const subscriptions: Promise<void>[] = [];
      for (let s = 0; s < pairs; s++) {
        subscriptions.push(
          subscribe(
            `${source.url}/events/workflows/bench`,
            (id, at) => direct.set(`${s}:${id}`, at),
            controller.signal,
          ),
          subscribe(
            `${streamWeb.url}/ui-api/runtime/events/workflows/bench`,
            (id, at) => forwarded.set(`${s}:${id}`, at),
            controller.signal,
          ),
        );
      }
      while (source.open < pairs * 2) await new Promise((resolve) => setTimeout(resolve, 20));
      const cpuBefore = cpuMs(streamWeb.child.pid!);
      for (let id = 0; id < events; id++) {
        source.send(id);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      const cpu = (cpuMs(streamWeb.child.pid!) - cpuBefore) / (pairs * events);
      const deltas = [...forwarded].flatMap(([key, at]) => {
        const first = direct.get(key);
        return first === undefined ? [] : [at - first];
      });
      const memory = rss(streamWeb.child.pid!);
      controller.abort();
      await Promise.all(subscriptions);
      return { deltas, memory, cpu };
    };
    console.log('web: server-sent event forwarding (latency added by the web server, per event)');
    for (const [pairs, events] of [
      [1, 500],
      [10, 300],
      [50, 200],
    ] as const) {
      const { deltas, memory, cpu } = await overhead(pairs, events);
      console.log(
        `  ${pairs} stream${pairs === 1 ? '' : 's'} × ${events} events (${(pairs * 100).toLocaleString()} events/s): p50 ${percentile(deltas, 50).toFixed(2)} ms, p99 ${percentile(deltas, 99).toFixed(2)} ms, max ${Math.max(...deltas).toFixed(2)} ms (target p99 ≤ 20 ms); ${deltas.length} events timed; web server CPU ${cpu.toFixed(3)} ms per event, RSS ${mb(memory)}`,
      );
    }

    // Memory with many idle streams open.
    const held = 500;
    const controller = new AbortController();
    const open = Array.from({ length: held }, () =>
      subscribe(`${streamWeb.url}/ui-api/runtime/events/workflows/idle`, () => {}, controller.signal),
    );
    while (source.open < held) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const withStreams = rss(streamWeb.child.pid!);
    controller.abort();
    await Promise.all(open);
    console.log('web: web server memory (RSS of `npm run web`)');
    console.log(`  idle after start: ${mb(idle)}; after ${loads * 2 + 1} page loads: ${mb(afterLoads)}`);
    console.log(`  holding ${held} open streams: ${mb(withStreams)}`);
  } finally {
    await browser.close();
    web.child.kill('SIGINT');
    streamWeb.child.kill('SIGINT');
    await source.close();
    await runtime.stop();
  }
}
