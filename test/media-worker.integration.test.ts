/**
 * The media worker's entry (containers/media-worker) run as a plain Node process, as its container runs it:
 * consuming the ingestion queue of a runtime that consumes none, and started for one job by a runtime whose
 * worker has no media tools (the `process` launcher, the local stand-in for the ECS task).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sceneVideo, textImage } from '@tessera/testing/media';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobEnded, upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const root = path.resolve(import.meta.dirname, '..');
const ENTRY = ['--import', 'tsx', 'containers/media-worker/src/main.ts'];

let dir: string;
let video: Uint8Array;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'media-worker-'));
  video = new Uint8Array(
    await readFile(
      await sceneVideo(
        dir,
        'worker.mp4',
        [{ text: 'WORKER KESTREL', seconds: 3, background: 'white' }],
        'none',
      ),
    ),
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The media worker as a process against a runtime's emulators and data directory. */
function startWorker(rt: RuntimeProcess, args: string[] = []) {
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [...ENTRY, ...args], {
    cwd: root,
    env: {
      ...process.env,
      AWS_ENDPOINT_URL: rt.emulatorUrl,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      TESSERA_DATA_DIR: rt.dataDir,
      TESSERA_LOG_LEVEL: 'warn',
      TESSERA_MEDIA_WAIT_SECONDS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('the media worker consuming the ingestion queue (integration: a plain Node process)', () => {
  let rt: RuntimeProcess;
  let worker: ReturnType<typeof startWorker>;

  beforeAll(async () => {
    rt = await spawnRuntime({ env: { TESSERA_QUEUE_WORKERS: 'off' } });
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
    worker = startWorker(rt);
  });

  afterAll(async () => {
    await worker?.stop();
    await rt?.stop();
  });

  it('runs the jobs the runtime queues, media and documents alike, and stops on SIGTERM', async () => {
    const image = new Uint8Array(await readFile(await textImage(dir, 'plate.png', ['Osprey Harbour'])));
    const { status, body } = await upload(rt.url, { tenant_id: 'acme' }, [
      { name: 'worker.mp4', content: video },
      { name: 'plate.png', content: image },
      { name: 'note.md', content: 'The kestrel survey ended in March.' },
    ]);
    expect(status).toBe(202);
    const job = await jobEnded(rt.url, body.job_id, 90_000);
    expect(job.result).toMatchObject({ status: 'complete', files_failed: 0 });
    const found = await call(rt.url, 'POST', '/search/', {
      query: 'kestrel',
      tenant_id: 'acme',
      profile: 'video_colpali_smol500_mv_frame',
    });
    expect(found.body.results[0]).toMatchObject({
      source_doc_id: 'worker.mp4',
      fields: { ocr_text: 'WORKER KESTREL' },
    });
    expect(worker.output()).toContain('Tessera media worker consuming');
    expect(await worker.stop()).toBe(0);
  });
});

describe('a media job handed to the media worker process (integration)', () => {
  let rt: RuntimeProcess;

  beforeAll(async () => {
    rt = await spawnRuntime({
      env: {
        // The runtime's worker is like the ingestion Lambda: no media tools, a media worker to hand jobs to.
        TESSERA_MEDIA_TOOLS: 'off',
        TESSERA_MEDIA_TASKS: 'process',
        TESSERA_MEDIA_TASK_COMMAND: JSON.stringify([process.execPath, ...ENTRY]),
      },
    });
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
  });

  afterAll(async () => {
    await rt?.stop();
  });

  it('runs the job in the worker started for it, which takes it up by its lease and ends it', async () => {
    const { body } = await upload(rt.url, { tenant_id: 'acme' }, [{ name: 'handed.mp4', content: video }]);
    const job = await jobEnded(rt.url, body.job_id, 90_000);
    expect(job).toMatchObject({ state: 'complete', deliveries: 2 });
    const handedOff = job.entries.find(
      (entry: { event?: { phase?: string } }) => entry.event?.phase === 'handed_off',
    );
    expect(handedOff.event.message).toBe(
      'handed.mp4: the video pipeline needs ffmpeg, OCR and speech detection, which this process does not have',
    );
    expect(job.result.files[0]).toMatchObject({ status: 'indexed', media: { kind: 'video' } });
  });
});
