/**
 * Jobs for the media worker: a worker without media tools hands a media job over whole (its lease back to
 * the job, the worker launched on it), and the media worker takes it up by that lease; the launchers' wire.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ECSClient } from '@aws-sdk/client-ecs';
import { useServers } from '@tessera/testing';
import { describe, expect, it } from 'vitest';
import { runJob, submitUpload } from '../src';
import { EcsMediaTaskLauncher, MEDIA_JOB_VARIABLE } from '../src/ecs-media-task-launcher';
import { loadMediaTools } from '../src/pipelines/media-tools';
import type { MediaTaskLauncher } from '../src/ports';
import { ProcessMediaTaskLauncher } from '../src/process-media-task-launcher';
import { drain, file, useIngestion } from './support';

const h = useIngestion();

/** Eight bytes of an MP4 header: accepted at submit, not decodable. */
const MP4_HEAD = new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70]);

function recordingLauncher(): MediaTaskLauncher & { launched: string[] } {
  const launched: string[] = [];
  return {
    name: 'test',
    launched,
    async launch(jobId) {
      launched.push(jobId);
      return `task-${launched.length}`;
    },
  };
}

describe('a job that needs the media worker', () => {
  it('is handed over whole by a worker without media tools, and finished by the media worker', async () => {
    const launcher = recordingLauncher();
    const worker = { ...h().ingestion, media: undefined, mediaTasks: launcher };
    const submitted = await submitUpload(worker, {
      tenant_id: 'acme',
      files: [file('notes.md', 'Ada Lovelace wrote notes.'), { name: 'clip.mp4', bytes: MP4_HEAD }],
    });
    for (const message of h().ingestion.queue.receive()) await runJob(worker, message.job_id);
    expect(launcher.launched).toEqual([submitted.job_id]);
    // Handed over: still running, its task open with the lease back on the job, nothing fed yet.
    expect(await h().ingestion.jobs.state(submitted.job_id)).toBe('running');
    const events = await h().ingestion.events.read(submitted.job_id, 0);
    expect(events.at(-1)).toMatchObject({
      type: 'status',
      phase: 'handed_off',
      message:
        'clip.mp4: the video pipeline needs ffmpeg, OCR and speech detection, which this process does not have',
    });
    expect(await h().content.index.count('document_text_acme_acme', { sourceDocId: 'notes.md' })).toBe(0);

    // The media worker (tools, no launcher, no time limit) takes the job up by its lease and ends it.
    await runJob({ ...h().ingestion, media: loadMediaTools, mediaTasks: undefined }, submitted.job_id);
    const job = (await h().ingestion.jobs.get(submitted.job_id))!;
    expect(job).toMatchObject({ state: 'complete', deliveries: 2 });
    expect(job.result!.files.map((f) => [f.source_doc_id, f.status, f.error_type])).toEqual([
      ['notes.md', 'indexed', undefined],
      ['clip.mp4', 'failed', 'CorruptMedia'],
    ]);
    await (await (await loadMediaTools()).embeddedToolkit()).ocr.close();
  });

  it('fails its media files where there is neither a media tool nor a media worker', async () => {
    const worker = { ...h().ingestion, media: undefined, mediaTasks: undefined };
    const submitted = await submitUpload(worker, {
      tenant_id: 'acme',
      files: [{ name: 'still.png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) }],
    });
    for (const message of h().ingestion.queue.receive()) await runJob(worker, message.job_id);
    expect((await h().ingestion.jobs.get(submitted.job_id))!).toMatchObject({
      state: 'failed',
      error_type: 'UnsupportedContent',
      error: expect.stringMatching(
        /^still\.png: the image pipeline needs ffmpeg.*no media worker is configured \(TESSERA_MEDIA_TASKS\)$/,
      ),
    });
  });

  it('goes to the media worker when a file would outlive the attempt', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hand-off-'));
    try {
      const { sceneVideo } = await import('@tessera/testing/media');
      const video = await sceneVideo(
        dir,
        'long.mp4',
        [{ text: 'LONG', seconds: 20, background: 'white' }],
        'none',
      );
      const launcher = recordingLauncher();
      const worker = { ...h().ingestion, media: loadMediaTools, mediaTasks: launcher };
      const submitted = await submitUpload(worker, {
        tenant_id: 'acme',
        files: [{ name: 'long.mp4', bytes: new Uint8Array(await readFile(video)) }],
      });
      // 20 s of video at 30 s of work a minute is 10 s: more than an attempt of 5 s has.
      for (const message of h().ingestion.queue.receive()) await runJob(worker, message.job_id, 5_000);
      expect(launcher.launched).toEqual([submitted.job_id]);
      const events = await h().ingestion.events.read(submitted.job_id, 0);
      expect(events.at(-1)).toMatchObject({
        phase: 'handed_off',
        message: 'long.mp4 is 20 s long, about 10 s of work, more than this attempt has left',
      });
      await drain(h());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const servers = useServers();

describe('EcsMediaTaskLauncher', () => {
  const settings = {
    cluster: 'tessera',
    taskDefinition: 'tessera-media-worker:3',
    container: 'media-worker',
    subnets: ['subnet-a', 'subnet-b'],
    securityGroups: ['sg-1'],
    assignPublicIp: false,
  };
  const client = (url: string) =>
    new ECSClient({
      endpoint: url,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });

  it('runs the task definition on Fargate with the job in the worker container’s environment', async () => {
    const ecs = await servers.start(() => ({
      status: 200,
      json: { tasks: [{ taskArn: 'arn:aws:ecs:eu-west-1:1:task/tessera/abc' }], failures: [] },
    }));
    const launcher = new EcsMediaTaskLauncher(settings, client(ecs.url));
    expect(await launcher.launch('ingest_0123456789abcdef')).toBe('arn:aws:ecs:eu-west-1:1:task/tessera/abc');
    const [request] = ecs.requests;
    expect(request!.headers['x-amz-target']).toBe('AmazonEC2ContainerServiceV20141113.RunTask');
    expect(request!.body).toEqual({
      cluster: 'tessera',
      taskDefinition: 'tessera-media-worker:3',
      launchType: 'FARGATE',
      count: 1,
      clientToken: 'ingest_0123456789abcdef',
      startedBy: 'ingest_0123456789abcdef',
      networkConfiguration: {
        awsvpcConfiguration: {
          subnets: ['subnet-a', 'subnet-b'],
          securityGroups: ['sg-1'],
          assignPublicIp: 'DISABLED',
        },
      },
      overrides: {
        containerOverrides: [
          {
            name: 'media-worker',
            environment: [{ name: MEDIA_JOB_VARIABLE, value: 'ingest_0123456789abcdef' }],
          },
        ],
      },
    });
  });

  it('says why ECS started no task', async () => {
    const ecs = await servers.start(() => ({
      status: 200,
      json: { tasks: [], failures: [{ reason: 'RESOURCE:MEMORY', detail: 'no capacity' }] },
    }));
    const launcher = new EcsMediaTaskLauncher(settings, client(ecs.url));
    await expect(launcher.launch('ingest_1')).rejects.toThrow(
      'ECS did not start the media worker for ingest_1: RESOURCE:MEMORY (no capacity)',
    );
  });
});

describe('ProcessMediaTaskLauncher', () => {
  it('starts the command with the job as its argument', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'launcher-'));
    try {
      const out = path.join(dir, 'argv.json');
      const script = path.join(dir, 'worker.cjs');
      await writeFile(
        script,
        `require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.argv.slice(2)))`,
      );
      const launcher = new ProcessMediaTaskLauncher([process.execPath, script]);
      expect(await launcher.launch('ingest_42')).toMatch(/^process:\d+$/);
      for (let i = 0; i < 100; i++) {
        const written = await readFile(out, 'utf8').catch(() => undefined);
        if (written) {
          expect(JSON.parse(written)).toEqual(['--job', 'ingest_42']);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the command never ran');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects when the command cannot start', async () => {
    const launcher = new ProcessMediaTaskLauncher(['/nonexistent/media-worker']);
    await expect(launcher.launch('ingest_1')).rejects.toThrow(
      /^the media worker could not start: spawn \/nonexistent/,
    );
  });
});
