/**
 * The runtime killed (SIGKILL) in the middle of a burst of uploads for two tenants, then started again on its
 * data: every job ends, within a minute of the restart, none lost and no document twice; the streams of the
 * interrupted jobs carry on to the jobs' ends. Prints its figures.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { jobEnded, upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime, tempDataDir } from './support/runtime';

const started: RuntimeProcess[] = [];
afterEach(async () => {
  for (const runtime of started.splice(0).reverse()) await runtime.stop();
});

const TENANTS = ['burst_a', 'burst_b'];
const UPLOADS = 50;

/** A word no other file holds, so a search tells how many documents hold each file's content. */
const wordOf = (i: number) =>
  `quokka${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;

/** The state of each job, as its status route answers. */
async function states(base: string, jobs: { jobId: string }[]): Promise<string[]> {
  return Promise.all(
    jobs.map(
      async ({ jobId }) => (await call(base, 'GET', `/ingestion/${jobId}/events`)).body.state as string,
    ),
  );
}

type Frame = { type: string; [key: string]: unknown };

/** Reads an SSE stream until it ends, telling `onFrame` of each frame's data as it comes; its frames. */
async function streamed(url: string, timeoutMs: number, onFrame?: (frame: Frame) => void): Promise<Frame[]> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const reader = response.body!.getReader();
  const frames: Frame[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return frames;
    buffer += Buffer.from(value).toString();
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const data = /^data: (.*)$/m.exec(buffer.slice(0, cut))?.[1];
      buffer = buffer.slice(cut + 2);
      if (data === undefined) continue;
      const frame = JSON.parse(data) as Frame;
      frames.push(frame);
      onFrame?.(frame);
    }
  }
}

describe('crash recovery (integration)', () => {
  it('ends every job of a burst within a minute of a restart after a SIGKILL, none lost and none twice', async () => {
    const dataDir = tempDataDir();
    const first = await spawnRuntime({ dataDir });
    started.push(first);
    for (const tenant of TENANTS) {
      const created = await call(first.url, 'POST', '/admin/tenants', {
        tenant_id: tenant,
        base_schemas: ['document_text'],
      });
      expect(created.status).toBe(201);
    }
    // The burst: 50 uploads, alternating tenants, each a document with a word of its own.
    const jobs = await Promise.all(
      Array.from({ length: UPLOADS }, async (_, i) => {
        const tenant = TENANTS[i % 2]!;
        const name = `note-${i}.md`;
        const content = `Field note ${i} on the ${wordOf(i)} colony.\n\nThe ${wordOf(i)} sleeps by day.`;
        const { status, body } = await upload(first.url, { tenant_id: tenant }, [{ name, content }]);
        expect(status).toBe(202);
        return { jobId: body.job_id as string, tenant, name, word: wordOf(i) };
      }),
    );
    // Killed while jobs run: some done, some running, most queued.
    let before: string[] = [];
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      before = await states(first.url, jobs);
      if (before.includes('running') && before.filter((s) => s === 'complete').length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const interrupted = jobs.filter((_, i) => before[i] === 'running');
    expect(interrupted.length).toBeGreaterThan(0);
    await first.stop('SIGKILL');

    const restartedAt = Date.now();
    const second = await spawnRuntime({ dataDir });
    started.push(second);
    const readyAfter = Date.now() - restartedAt;
    // A reader of an interrupted job follows it to its end: it is never told the job stopped for good.
    const stream = streamed(`${second.url}/events/ingestion/${interrupted[0]!.jobId}?from_offset=0`, 120_000);

    // One job at a time, once a second: fifty readers polling at once took a share of the CPU the restarted
    // runtime's worker needs. When each job ended is read from its last event, not from when it was seen.
    const ended = [];
    for (const job of jobs)
      ended.push(
        await jobEnded(second.url, job.jobId, Math.max(1_000, restartedAt + 150_000 - Date.now()), 1_000),
      );
    const allEndedAfter = Math.max(
      ...ended.map((job) => Date.parse(job.entries.at(-1)?.timestamp ?? new Date().toISOString())),
    );
    const seconds = (allEndedAfter - restartedAt) / 1000;
    const lost = ended.filter((job) => job.state !== 'complete').length;

    let duplicated = 0;
    let missing = 0;
    for (const job of jobs) {
      const { body } = await call(second.url, 'POST', '/search/', {
        query: job.word,
        tenant_id: job.tenant,
        profile: 'document_text_semantic',
        strategy: 'bm25_only',
        top_k: 10,
      });
      const hits = body.results.filter((r: { source_doc_id: string }) => r.source_doc_id === job.name).length;
      if (hits > 1) duplicated += hits - 1;
      if (hits === 0) missing++;
    }
    const frames = await stream;
    console.log(
      `crash recovery: ${UPLOADS} uploads for ${TENANTS.length} tenants, killed with ` +
        `${before.filter((s) => s === 'complete').length} complete, ${interrupted.length} running, ` +
        `${before.filter((s) => s === 'queued').length} queued; restarted runtime ready after ` +
        `${(readyAfter / 1000).toFixed(1)} s; every job ended ${seconds.toFixed(1)} s after the restart; ` +
        `jobs lost ${lost}; documents duplicated ${duplicated}; documents missing ${missing}`,
    );

    expect(ended.map((job) => job.state)).toEqual(jobs.map(() => 'complete'));
    expect(lost).toBe(0);
    expect(duplicated).toBe(0);
    expect(missing).toBe(0);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(frames.filter((frame) => frame.type === 'error')).toEqual([]);
    expect(frames.at(-2)).toMatchObject({ type: 'complete' });
    expect(frames.at(-1)).toMatchObject({ type: 'end', outcome: 'ended' });
  }, 300_000);

  it('keeps a job whose worker died resumable: its stream waits for it, and a cancel of it is recorded and ends it', async () => {
    const dataDir = tempDataDir();
    const first = await spawnRuntime({
      dataDir,
      env: { TESSERA_FAILPOINTS: 'stall:ingestion.file:stuck.md' },
    });
    started.push(first);
    expect((await call(first.url, 'POST', '/admin/tenants', { tenant_id: 'stalled' })).status).toBe(201);
    const { body } = await upload(first.url, { tenant_id: 'stalled' }, [
      { name: 'stuck.md', content: 'Stuck.' },
    ]);
    for (let state = ''; state !== 'running'; await new Promise((resolve) => setTimeout(resolve, 50)))
      state = (await call(first.url, 'GET', `/ingestion/${body.job_id}/events`)).body.state;
    await first.stop('SIGKILL');

    const second = await spawnRuntime({ dataDir });
    started.push(second);
    // Once the dead worker's lease lapsed the stream says so, and stays open; a cancel then is recorded.
    let cancel: Promise<{ status: number; body: { message?: string } }> | undefined;
    const frames = await streamed(`${second.url}/events/ingestion/${body.job_id}`, 90_000, (frame) => {
      if (frame.type === 'interrupted')
        cancel ??= call(second.url, 'POST', `/events/ingestion/${body.job_id}/cancel`, { reason: 'gave up' });
    });
    expect(frames.map((frame) => frame.type)).toEqual([
      'connected',
      'status',
      'status',
      'interrupted',
      'status',
      'end',
    ]);
    expect((await cancel!).status).toBe(200);
    expect(frames.at(-2)).toMatchObject({ type: 'status', state: 'cancelled', message: 'gave up' });
    const job = await jobEnded(second.url, body.job_id, 10_000);
    expect(job).toMatchObject({ state: 'cancelled', reason: 'gave up', deliveries: 1 });
  }, 180_000);
});
