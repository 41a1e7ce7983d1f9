/**
 * Administration figures: configuration record reads, cached and uncached, through the local runtime and in
 * process (the domain over the emulated DynamoDB); profile create, update and get through the runtime; the
 * 12-step provisioning workflow run in process by the runtime, from its start to its CompleteEvent.
 * Targets (issue 16): a cached read p99 ≤ 5 ms in process, a profile get p99 ≤ 50 ms through the runtime.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readEvents } from '../test/support/sse';

const root = path.resolve(import.meta.dirname, '..');
const READS = Number(process.env.BENCH_ADMIN_READS ?? 1000);
const WRITES = Number(process.env.BENCH_ADMIN_WRITES ?? 200);
const PROVISIONS = Number(process.env.BENCH_ADMIN_PROVISIONS ?? 10);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function row(name: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const cell = (value: number) => value.toFixed(value < 1 ? 3 : 1).padStart(8);
  return `${name.padEnd(52)} ${cell(percentile(sorted, 50))} ${cell(percentile(sorted, 99))} ${cell(sorted.at(-1)!)}`;
}

interface Runtime {
  url: string;
  /** The runtime's AWS emulators, when it started them. */
  emulatorUrl?: string;
  /** CPU milliseconds (user + system, all threads) the runtime process has used so far; undefined off Linux. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** The runtime's entry point as `npm start` runs it, on free ports, answering once it listens. */
/** A process's CPU time from `/proc/<pid>/stat` (utime + stime, in clock ticks of 10 ms). */
function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Extra Node flags for the runtime under measurement, e.g. `BENCH_RUNTIME_NODE_ARGS=--cpu-prof`. */
const runtimeNodeArgs = () => (process.env.BENCH_RUNTIME_NODE_ARGS ?? '').split(' ').filter(Boolean);

export async function startRuntime(dataDir: string, env: Record<string, string> = {}): Promise<Runtime> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...runtimeNodeArgs(), '--import', 'tsx', 'packages/runtime/src/main.ts'],
    {
      cwd: root,
      env: {
        ...process.env,
        TESSERA_DATA_DIR: dataDir,
        TESSERA_PORT: '0',
        TESSERA_EMULATOR_PORT: '0',
        TESSERA_LOG_LEVEL: 'warn',
        TESSERA_SCHEDULER: 'off',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+) /.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    exited.then(() => reject(new Error(`runtime exited before it listened:\n${output}`)));
  });
  return {
    url,
    emulatorUrl: /AWS emulators at (http:\/\/[^\s;]+)/.exec(output)?.[1],
    cpuMs: () => processCpuMs(child.pid),
    async stop() {
      child.kill('SIGINT');
      await exited;
    },
  };
}

async function timed(send: () => Promise<Response>, expected = 200): Promise<number> {
  const started = performance.now();
  const response = await send();
  await response.arrayBuffer();
  if (response.status !== expected) throw new Error(`unexpected status ${response.status}`);
  return performance.now() - started;
}

const json = { 'content-type': 'application/json' };
const put = (url: string, body: unknown) =>
  fetch(url, { method: 'PUT', headers: json, body: JSON.stringify(body) });

/** Reads of a tenant's `llm` record through the runtime (its cache as configured). */
async function runtimeReads(dataDir: string, cacheSeconds: string): Promise<number[]> {
  const runtime = await startRuntime(dataDir, { TESSERA_CONFIG_CACHE_SECONDS: cacheSeconds });
  try {
    const tenant = `bench:c${cacheSeconds.replace('.', '_')}`;
    await fetch(`${runtime.url}/admin/tenants`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ tenant_id: tenant, base_schemas: ['wiki'] }),
    });
    await put(`${runtime.url}/admin/tenants/${tenant}/config/llm`, { model: 'openai/bench' });
    const reads: number[] = [];
    for (let i = 0; i < 50; i++)
      await timed(() => fetch(`${runtime.url}/admin/tenants/${tenant}/config/llm`));
    for (let i = 0; i < READS; i++) {
      reads.push(await timed(() => fetch(`${runtime.url}/admin/tenants/${tenant}/config/llm`)));
    }
    return reads;
  } finally {
    await runtime.stop();
  }
}

/** Reads through the domain function in this process, over the emulated DynamoDB. */
async function inProcessReads(dataDir: string) {
  const { startLocalBackends } = await import('@tessera/emulators');
  const emulators = await startLocalBackends(dataDir);
  try {
    const { KeyedSerializer } = await import('@tessera/core');
    const { ConfigCache, DynamoConfigStore, readConfig } = await import('@tessera/config');
    const store = new DynamoConfigStore();
    const deps = (ttlMs: number) => ({
      store,
      tenancy: undefined as never,
      cache: new ConfigCache(ttlMs),
      writes: new KeyedSerializer(),
      now: Date.now,
    });
    await store.append('bench:inproc', 'llm', {
      version: 1,
      value: { model: 'openai/bench' },
      created_at: Date.now(),
      created_by: 'bench',
    });
    const measure = async (ttlMs: number) => {
      const d = deps(ttlMs);
      for (let i = 0; i < 50; i++) await readConfig(d, 'bench:inproc', 'llm');
      const times: number[] = [];
      for (let i = 0; i < READS; i++) {
        const started = performance.now();
        await readConfig(d, 'bench:inproc', 'llm');
        times.push(performance.now() - started);
      }
      return times;
    };
    return { cached: await measure(60_000), uncached: await measure(0) };
  } finally {
    await emulators.stop();
  }
}

async function profileRoutes(dataDir: string) {
  const runtime = await startRuntime(dataDir);
  try {
    await fetch(`${runtime.url}/admin/tenants`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ tenant_id: 'bench:profiles', base_schemas: ['wiki'] }),
    });
    const profile = (i: number) => ({
      tenant_id: 'bench:profiles',
      profile_name: `p${i}`,
      type: 'document',
      schema_name: 'document_text',
      embedding_model: 'lightonai/GTE-ModernColBERT-v1',
      embedding_type: 'multi_vector',
      model_loader: 'colbert',
      extra_config: { extensions: ['.md'] },
    });
    const creates: number[] = [];
    const updates: number[] = [];
    const gets: number[] = [];
    const tenantGets: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      creates.push(
        await timed(
          () =>
            fetch(`${runtime.url}/admin/profiles`, {
              method: 'POST',
              headers: json,
              body: JSON.stringify(profile(i)),
            }),
          201,
        ),
      );
    }
    for (let i = 0; i < WRITES; i++) {
      updates.push(
        await timed(() =>
          put(`${runtime.url}/admin/profiles/p${i % 20}`, {
            tenant_id: 'bench:profiles',
            description: `v${i}`,
          }),
        ),
      );
    }
    // Each profile get next to a tenant get (one DynamoDB read behind the same stack), the baseline of the machine.
    for (let i = 0; i < WRITES; i++) {
      gets.push(await timed(() => fetch(`${runtime.url}/admin/profiles/p${i}?tenant_id=bench:profiles`)));
      tenantGets.push(await timed(() => fetch(`${runtime.url}/admin/tenants/bench:profiles`)));
    }
    return { creates, updates, gets, tenantGets };
  } finally {
    await runtime.stop();
  }
}

/** An OTLP/HTTP collector on loopback that takes every export (the telemetry step needs one). */
async function collector(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The 12-step provisioning workflow of fresh tenants, one after another: the start's answer, and the time
 * from the start to the workflow task's CompleteEvent; then a repeated start of a finished one.
 */
async function provisioningRuns(dataDir: string) {
  const traces = await collector();
  const runtime = await startRuntime(dataDir, { TESSERA_TELEMETRY_URL: traces.url });
  try {
    const starts: number[] = [];
    const workflows: number[] = [];
    const repeats: number[] = [];
    for (let i = 0; i < PROVISIONS; i++) {
      const tenant = `bench:prov${i}`;
      const created = await fetch(`${runtime.url}/admin/tenants`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ tenant_id: tenant, base_schemas: ['document_text'] }),
      });
      if (created.status !== 201) throw new Error(`tenant create answered ${created.status}`);
      const body = JSON.stringify({
        tier: 'pro',
        cpu_quota: 2,
        memory_quota: 1024,
        storage_quota: 1_000_000,
      });
      const started = performance.now();
      const answer = await fetch(`${runtime.url}/admin/tenants/${tenant}/provision`, {
        method: 'POST',
        headers: json,
        body,
      });
      starts.push(performance.now() - started);
      if (answer.status !== 202)
        throw new Error(`provision answered ${answer.status}: ${await answer.text()}`);
      const { events_url } = (await answer.json()) as { events_url: string };
      const events = await readEvents(`${runtime.url}${events_url}`, 120_000);
      workflows.push(performance.now() - started);
      if (events.at(-1)?.type !== 'complete')
        throw new Error(`provisioning ended with ${JSON.stringify(events.at(-1))}`);
      repeats.push(
        await timed(
          () =>
            fetch(`${runtime.url}/admin/tenants/${tenant}/provision`, {
              method: 'POST',
              headers: json,
              body,
            }),
          202,
        ),
      );
    }
    return { starts, workflows, repeats };
  } finally {
    await runtime.stop();
    await traces.close();
  }
}

export async function adminBench(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-admin-'));
  try {
    const cachedHttp = await runtimeReads(path.join(dataDir, 'cached'), '2');
    const uncachedHttp = await runtimeReads(path.join(dataDir, 'uncached'), '0');
    const inProcess = await inProcessReads(path.join(dataDir, 'inproc'));
    const profiles = await profileRoutes(path.join(dataDir, 'profiles'));
    const provisions = await provisioningRuns(path.join(dataDir, 'provisioning'));
    console.log(`\nAdministration (ms)                                       p50      p99      max`);
    console.log(row(`config read through the runtime, cached (${READS})`, cachedHttp));
    console.log(row(`config read through the runtime, uncached (${READS})`, uncachedHttp));
    console.log(row(`config read in process, cached (${READS})`, inProcess.cached));
    console.log(row(`config read in process, uncached (${READS})`, inProcess.uncached));
    console.log(row(`POST /admin/profiles (${WRITES}, serial)`, profiles.creates));
    console.log(row(`PUT /admin/profiles/{name} (${WRITES}, 20 profiles)`, profiles.updates));
    console.log(row(`GET /admin/profiles/{name} (${WRITES})`, profiles.gets));
    console.log(row(`GET /admin/tenants/{id}, alternating with it (baseline)`, profiles.tenantGets));
    console.log(row(`POST /admin/tenants/{id}/provision, answer (${PROVISIONS})`, provisions.starts));
    console.log(
      row(`12-step provisioning workflow, start to complete (${PROVISIONS})`, provisions.workflows),
    );
    console.log(row(`POST …/provision again, the same execution (${PROVISIONS})`, provisions.repeats));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
