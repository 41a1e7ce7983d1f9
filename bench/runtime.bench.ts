/**
 * Local runtime figures: time from `npm start` to a healthy /health, and latency of tenant create and get
 * through the runtime over 200 requests each.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const PORT = 28200;
const EMULATOR_PORT = 28201;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health`);
    return response.status === 200 && ((await response.json()) as { status?: string }).status === 'ok';
  } catch {
    return false;
  }
}

async function startAndWait(dataDir: string) {
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: {
      ...process.env,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_PORT: String(PORT),
      TESSERA_EMULATOR_PORT: String(EMULATOR_PORT),
      TESSERA_LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
    detached: true,
  });
  const url = `http://127.0.0.1:${PORT}`;
  while (!(await healthy(url))) {
    if (performance.now() - started > 60_000) throw new Error('runtime did not become healthy in 60 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const ms = performance.now() - started;
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGINT');
    await exited;
  };
  return { url, ms, stop };
}

async function timed(fn: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await fn();
  await response.arrayBuffer();
  if (response.status >= 300) throw new Error(`unexpected status ${response.status}`);
  return performance.now() - started;
}

export async function runtimeBench(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-'));
  try {
    const startups: number[] = [];
    for (let i = 0; i < 3; i++) {
      const runtime = await startAndWait(dataDir);
      startups.push(runtime.ms);
      await runtime.stop();
    }
    const runtime = await startAndWait(dataDir);
    const creates: number[] = [];
    const gets: number[] = [];
    const json = { 'content-type': 'application/json' };
    for (let i = 0; i < 200; i++) {
      creates.push(
        await timed(() =>
          fetch(`${runtime.url}/admin/tenants`, {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ tenant_id: `bench:t${i}` }),
          }),
        ),
      );
    }
    for (let i = 0; i < 200; i++)
      gets.push(await timed(() => fetch(`${runtime.url}/admin/tenants/bench:t${i % 200}`)));
    await runtime.stop();

    const row = (name: string, values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return `${name.padEnd(34)} ${percentile(sorted, 50).toFixed(1).padStart(8)} ${percentile(sorted, 99).toFixed(1).padStart(8)} ${sorted.at(-1)!.toFixed(1).padStart(8)}`;
    };
    console.log('\nLocal runtime (ms)                      p50      p99      max');
    console.log(row('npm start → healthy /health (x3)', startups));
    console.log(row('POST /admin/tenants (200, serial)', creates));
    console.log(row('GET /admin/tenants/{id} (200)', gets));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
