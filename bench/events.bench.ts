/**
 * Task event figures through the local runtime: append→delivery latency with 1 and 100 SSE subscribers on
 * one task, sustained appends on one task and across 50, and the runtime's memory per open stream. The
 * producer is this process; the runtime streams, as a second process sharing the store would.
 */
import { readFileSync } from 'node:fs';
import { spawnRuntime } from '../test/support/runtime';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/** Idle streams held open at once to read the memory of one. */
const STREAMS_HELD = 500;

const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/** Opens a stream and calls `onEvent(offset, receivedAt)` for each event frame. */
async function subscribe(
  url: string,
  onEvent: (offset: number, at: number) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(url, { signal });
  const reader = response.body!.getReader();
  let buffer = '';
  try {
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

export async function eventsBench(): Promise<void> {
  const runtime = await spawnRuntime({ env: { TESSERA_LOG_LEVEL: 'error' } });
  try {
    process.env.AWS_ENDPOINT_URL = runtime.emulatorUrl;
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    const { taskEvents } = await import('@tessera/events');
    const store = taskEvents();
    let n = 0;
    const open = async () => {
      const taskId = `bench_${Date.now().toString(36)}_${n++}`;
      await store.open({
        task_id: taskId,
        kind: 'workflow',
        tenant_id: 'bench:bench',
        owner: 'bench',
        leaseMs: 600_000,
      });
      return taskId;
    };

    const latency = async (subscribers: number, events: number) => {
      const taskId = await open();
      const sentAt = new Map<number, number>();
      const delays: number[] = [];
      const controller = new AbortController();
      let connected = 0;
      const streams = Array.from({ length: subscribers }, () =>
        subscribe(
          `${runtime.url}/events/workflows/${taskId}`,
          (offset, at) => {
            const sent = sentAt.get(offset);
            if (sent !== undefined) delays.push(at - sent);
          },
          controller.signal,
        ).catch(() => undefined),
      );
      // Let every stream connect and register before timing.
      await new Promise((resolve) => setTimeout(resolve, 500 + subscribers * 10));
      connected = (await store.info(taskId)).subscriber_count;
      for (let i = 0; i < events; i++) {
        const started = performance.now();
        const { offset } = await store.append(taskId, {
          type: 'progress',
          current: i,
          total: events,
          percentage: 0,
          details: {},
        });
        sentAt.set(offset, started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const memory = rss(runtime.child.pid!);
      controller.abort();
      await Promise.all(streams);
      return { delays, connected, memory };
    };

    /** The runtime's resident memory once it stops moving by more than 2 MB a second (15 s at most). */
    const settledRss = async () => {
      let last = rss(runtime.child.pid!);
      for (let waited = 0; waited < 15_000; waited += 1000) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const now = rss(runtime.child.pid!);
        const settled = Math.abs(now - last) < 2 * 1048576;
        last = now;
        if (settled) break;
      }
      return last;
    };
    // The runtime loads some things after it answers (the entity tagger's threads): let it settle first.
    await settledRss();
    const one = await latency(1, 200);
    const hundred = await latency(100, 100);
    // Memory per stream from many idle streams at once, after the runs above warmed what every stream uses,
    // so that what the collector happens to free between two readings (several MB) is small beside them.
    const baseline = await settledRss();
    const held = await latency(STREAMS_HELD, 0);
    console.log(
      `\nTask events through the local runtime (producer in another process, store in the emulated DynamoDB)`,
    );
    console.log(
      `append→delivery, 1 subscriber: p50 ${percentile(one.delays, 50).toFixed(1)} ms, p99 ${percentile(one.delays, 99).toFixed(1)} ms (${one.delays.length} deliveries)`,
    );
    console.log(
      `append→delivery, 100 subscribers: p50 ${percentile(hundred.delays, 50).toFixed(1)} ms, p99 ${percentile(hundred.delays, 99).toFixed(1)} ms (${hundred.delays.length} deliveries, ${hundred.connected} subscribers registered)`,
    );
    console.log(
      `runtime memory: ${Math.round(baseline / 1048576)} MB before, ${Math.round(held.memory / 1048576)} MB with ${held.connected} open streams: ${((held.memory - baseline) / held.connected / 1024).toFixed(0)} KB a stream`,
    );

    // Each producer appends again as soon as its append answers. The first second warms up and is not
    // counted: the rate is the one sustained after it.
    const rate = async (tasks: number, seconds: number) => {
      const ids = await Promise.all(Array.from({ length: tasks }, open));
      let appends = 0;
      const from = performance.now() + 1000;
      const until = from + seconds * 1000;
      await Promise.all(
        ids.map(async (taskId) => {
          while (performance.now() < until) {
            await store.append(taskId, { type: 'status', state: 'working', phase: 'step' });
            if (performance.now() > from) appends++;
          }
        }),
      );
      return appends / seconds;
    };
    console.log(
      `sustained appends: ${(await rate(1, 5)).toFixed(0)}/s on one task, ${(await rate(50, 5)).toFixed(0)}/s across 50 tasks`,
    );
  } finally {
    await runtime.stop();
  }
}
