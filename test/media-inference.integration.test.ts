/**
 * Media through a runtime process with model servers on loopback speaking their real protocols: an
 * OpenAI-compatible `/v1/audio/transcriptions`, an OpenAI-compatible vision chat for captions, and an LLM for
 * entities and claims. A video whose transcript names a person and whose frames show a person described by
 * a caption gets `same_as` edges; a transcription endpoint that loops, answers garbage, is loading or is
 * down fails or recovers as document 3 says; a cancel during a run of several videos lands between them.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Reply, startServer, type TestServer } from '@tessera/testing';
import {
  sceneVideo,
  speechWav,
  type TranscriptionRequest,
  transcriptionServer,
  visionChat,
} from '@tessera/testing/media';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLlm, startFakeLlm } from './support/fake-llm';
import { jobEnded, upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const VIDEO = 'video_colpali_smol500_mv_frame';
const CAPTION = 'A woman in a lab coat stands at a bench.';

/** What the loopback LLM finds as entities: each phrase the text holds, verbatim. */
const LEXICON: [string, string][] = [
  ['Marie Curie', 'Person'],
  ['Pierre Curie', 'Person'],
  ['woman in a lab coat', 'Concept'],
  ['Curie Laboratory', 'Organization'],
  ['polonium', 'Substance'],
  ['Warsaw', 'Location'],
];

/** The transcript the loopback server answers, spread over the chunk it was sent. */
const SPOKEN = [
  'Marie Curie discovered polonium.',
  'Marie Curie was born in Warsaw.',
  'Pierre Curie helped her.',
];

type Mode = 'speak' | 'loop' | 'garbage' | 'loading';

let rt: RuntimeProcess;
let llm: FakeLlm;
let transcription: TestServer;
let vision: TestServer;
let front: Switchable;
let dir: string;
let lecture: Uint8Array;
let mode: (request: TranscriptionRequest, count: number) => Mode = () => 'speak';
let delayMs = 0;
let captionReply: () => string | Reply = () => CAPTION;

/** A TCP front for a loopback server that can be taken down (connections refused) and brought back. */
interface Switchable {
  url: string;
  down(): Promise<void>;
  up(): Promise<void>;
}

async function switchable(target: string): Promise<Switchable> {
  const { port: targetPort } = new URL(target);
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const up = async () => {
    server = net.createServer((client) => {
      const backend = net.connect(Number(targetPort), '127.0.0.1');
      for (const socket of [client, backend]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(backend).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  };
  await up();
  return {
    url: `http://127.0.0.1:${port}`,
    up,
    async down() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}

function answerTranscription(request: TranscriptionRequest, count: number) {
  const chosen = mode(request, count);
  if (chosen === 'loop')
    return { text: 'the lab the lab the lab the lab the lab the lab the lab the lab the lab the lab' };
  if (chosen === 'garbage') return { status: 200, text: '<html>upstream proxy error</html>' };
  if (chosen === 'loading') return { status: 503, json: { error: { message: 'model loading' } } };
  const step = (request.seconds * 0.95) / SPOKEN.length;
  const segments = SPOKEN.map((text, i) => ({ start: i * step, end: (i + 1) * step, text }));
  return { text: SPOKEN.join(' '), segments };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'media-inference-'));
  transcription = await startServer(async (seen, count) => {
    const reply = await transcriptionServer(answerTranscription)(seen, count);
    return reply === 'hang' || !delayMs ? reply : { ...reply, delayMs };
  });
  front = await switchable(transcription.url);
  vision = await startServer(visionChat(() => captionReply()));
  llm = await startFakeLlm((prompt) => {
    const text = /Text:\n"""\n([\s\S]*)\n"""/.exec(prompt)?.[1] ?? prompt;
    if (prompt.includes('You find named entities')) {
      const entities = LEXICON.filter(([phrase]) => text.includes(phrase)).map(([phrase, label]) => ({
        text: phrase,
        label,
        score: 0.9,
      }));
      return { status: 200, content: { entities } };
    }
    const claims = text.includes('Marie Curie discovered polonium')
      ? [
          {
            subject: 'Marie Curie',
            predicate: 'discovered',
            object: 'polonium',
            evidence_span: 'Marie Curie discovered polonium',
            confidence: 0.9,
          },
        ]
      : [];
    return { status: 200, content: { claims } };
  });
  rt = await spawnRuntime({
    env: {
      TESSERA_TRANSCRIPTION_URL: `${front.url}/v1`,
      TESSERA_TRANSCRIPTION_MODEL: 'whisper-test',
      TESSERA_CAPTION_URL: `${vision.url}/v1`,
      TESSERA_CAPTION_MODEL: 'vision-test',
      TESSERA_LLM_BASE_URL: llm.url,
      TESSERA_LLM_MODEL: 'openai/test-model',
      TESSERA_ENTITY_EXTRACTOR: 'llm',
    },
  });
  expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
  const speech = await speechWav(dir, 'speech.wav', SPOKEN.join(' '));
  lecture = new Uint8Array(
    await readFile(
      await sceneVideo(
        dir,
        'lecture.mp4',
        [
          { text: 'Curie Laboratory', seconds: 4, background: 'white' },
          { text: 'RADIUM SAMPLES', seconds: 4, background: 'navy' },
        ],
        speech,
      ),
    ),
  );
});

beforeEach(() => {
  mode = () => 'speak';
  delayMs = 0;
  captionReply = () => CAPTION;
});

afterAll(async () => {
  await rt?.stop();
  await Promise.all([
    transcription?.close(),
    vision?.close(),
    llm?.close(),
    front?.down().catch(() => undefined),
  ]);
  await rm(dir, { recursive: true, force: true });
});

const edgesOf = async (node: string) =>
  (await call(rt.url, 'GET', `/graph/neighbors?tenant_id=acme&node=${encodeURIComponent(node)}`)).body;

describe('a video with transcription, captions and an LLM (integration: loopback model servers)', () => {
  it('transcribes, captions and links what the transcript names to who the frames show', async () => {
    const { status, body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'lecture.mp4', content: lecture },
    ]);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'complete',
      files: [
        {
          media: {
            kind: 'video',
            transcript_segments: 3,
            models: { transcription: 'transcription:whisper-test', captioning: 'caption:vision-test' },
          },
        },
      ],
    });
    expect(body.skipped).toBeUndefined();
    expect(body.speech_spans).toBeUndefined();
    expect(body.claims).toMatch(
      /^claims extracted; entities by llm:test-model; \d+ cross-modal same_as edges$/,
    );

    // The caption describes a person: the transcript's dominant Person (2 of 3 Person mentions) is who it is.
    const woman = await edgesOf('woman in a lab coat');
    const subject = woman.out_edges.filter((e: { relation: string }) => e.relation === 'same_as');
    expect(subject.length).toBe(body.files[0].media.keyframes);
    expect(subject[0]).toMatchObject({
      target_node_id: 'marie_curie',
      provenance: 'video_subject_inference',
      confidence: 0.6667,
      evidence_span: 'video_subject:2/3',
      modality: 'video',
      source_doc_id: 'lecture.mp4',
      segment_id: expect.stringMatching(/^frame_\d+$/),
    });
    // The name shown on screen shares a name token with both Curies.
    const lab = await edgesOf('Curie Laboratory');
    const shared = lab.out_edges.filter((e: { relation: string }) => e.relation === 'same_as');
    expect(new Set(shared.map((e: { target_node_id: string }) => e.target_node_id))).toEqual(
      new Set(['marie_curie', 'pierre_curie']),
    );
    expect(shared[0]).toMatchObject({
      provenance: 'INFERRED',
      evidence_span: 'shared_token:curie',
      segment_id: expect.stringMatching(/^frame_\d+_ocr_0$/),
    });
    // The claim from the transcript, at its segment's time.
    const curie = await edgesOf('Marie Curie');
    expect(curie.out_edges).toEqual([
      expect.objectContaining({
        relation: 'discovered',
        target_node_id: 'polonium',
        segment_id: 'transcript_0',
      }),
    ]);
  });

  it('finds a frame by its caption and transcript, with its times and back-references', async () => {
    const found = await call(rt.url, 'POST', '/search/', {
      query: 'RADIUM SAMPLES',
      tenant_id: 'acme',
      profile: VIDEO,
      top_k: 3,
    });
    const frame = found.body.results[0].fields;
    expect(frame).toMatchObject({ ocr_text: 'RADIUM SAMPLES', caption: CAPTION });
    expect(frame.ts_start).toBeGreaterThanOrEqual(3.9);
    expect(frame.audio_transcript).not.toBe('');
    expect(frame.relation_ids.length).toBeGreaterThan(0);
  });
});

describe('a transcription endpoint that fails (integration)', () => {
  it('fails a video whose chunk keeps looping after its second request as IngestPipelineError', async () => {
    mode = () => 'loop';
    const before = transcription.requests.length;
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'loop.mp4', content: lecture },
    ]);
    expect(body).toMatchObject({ status: 'failed', error_type: 'IngestPipelineError', documents_fed: 0 });
    expect(body.error).toMatch(
      /^loop\.mp4: Transcription chunk 0 \(0\.0–8\.\d s\) is unusable after 2 attempts: looping answer/,
    );
    expect(transcription.requests.length - before).toBe(2);
    const events = await call(rt.url, 'GET', `/ingestion/${body.job_id}/events`);
    expect(events.body.entries.at(-1)).toMatchObject({ state: 'failed', error_type: 'IngestPipelineError' });
  });

  it('fails a video whose transcription answers garbage twice', async () => {
    mode = () => 'garbage';
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'garbage.mp4', content: lecture },
    ]);
    expect(body).toMatchObject({ status: 'failed', error_type: 'IngestPipelineError' });
    expect(body.error).toMatch(
      /^garbage\.mp4: Transcription chunk 0 .* unusable after 2 attempts: answered out of contract/,
    );
  });

  it('waits out an endpoint that is loading (503), then indexes the video', async () => {
    let first = 0;
    mode = (_, count) => {
      first ||= count;
      return count - first < 2 ? 'loading' : 'speak';
    };
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'loading.mp4', content: lecture },
    ]);
    expect(body).toMatchObject({ status: 'complete', files: [{ media: { transcript_segments: 3 } }] });
  });

  it('fails a video whose endpoint is down, naming the endpoint, and indexes again once it is back', async () => {
    await front.down();
    try {
      const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
        { name: 'down.mp4', content: lecture },
      ]);
      expect(body).toMatchObject({ status: 'failed', error_type: 'IngestPipelineError' });
      expect(body.error).toContain(`Transcription endpoint at ${front.url}/v1`);
    } finally {
      await front.up();
    }
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'down.mp4', content: lecture },
    ]);
    expect(body.status).toBe('complete');
  });

  it('fails a video whose captioning endpoint answers without a caption', async () => {
    captionReply = () => ({ status: 200, json: { id: 'x', object: 'chat.completion', choices: [] } });
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'nocap.mp4', content: lecture },
    ]);
    expect(body).toMatchObject({ status: 'failed', error_type: 'IngestPipelineError' });
    expect(body.error).toMatch(/^nocap\.mp4: Captioning endpoint at .* answered without a caption/);
  });
});

describe('a run of several videos (integration)', () => {
  it('stops between videos when cancelled during the first', async () => {
    delayMs = 1500;
    const before = transcription.requests.length;
    const { status, body } = await upload(rt.url, { tenant_id: 'acme' }, [
      { name: 'run/one.mp4', content: lecture },
      { name: 'run/two.mp4', content: lecture },
      { name: 'run/three.mp4', content: lecture },
    ]);
    expect(status).toBe(202);
    // The first video's transcription has started: the cancel lands while it runs.
    const deadline = Date.now() + 30_000;
    while (transcription.requests.length === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const cancel = await call(rt.url, 'POST', `/events/ingestion/${body.job_id}/cancel`, {
      reason: 'enough',
    });
    expect(cancel.status).toBe(200);
    const job = await jobEnded(rt.url, body.job_id, 60_000);
    expect(job).toMatchObject({ state: 'cancelled', reason: 'enough' });
    // The video that was running ran to its end; the others never started.
    expect(job.result.files).toEqual([
      expect.objectContaining({ source_doc_id: 'run/one.mp4', status: 'indexed' }),
    ]);
    expect(transcription.requests.length - before).toBe(1);
  });

  it('reports a start-run video whose chunk stays unusable as ContentProcessingError, and goes on', async () => {
    const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
    const s3 = new S3Client({
      endpoint: rt.emulatorUrl,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const short = new Uint8Array(
      await readFile(
        await sceneVideo(
          dir,
          'short.mp4',
          [{ text: 'Curie Laboratory', seconds: 6, background: 'white' }],
          path.join(dir, 'speech.wav'),
        ),
      ),
    );
    for (const [name, body] of [
      ['batch/good.mp4', lecture],
      ['batch/looping.mp4', short],
    ] as const) {
      await s3.send(
        new PutObjectCommand({
          Bucket: 'tessera-local-uploads',
          Key: `tenants/acme:acme/${name}`,
          Body: body,
        }),
      );
    }
    // The 6-second video's chunk loops, the 8-second one's is sound.
    mode = (request) => (request.seconds < 7 ? 'loop' : 'speak');
    const started = await call(rt.url, 'POST', '/ingestion/start', { tenant_id: 'acme', prefix: 'batch/' });
    expect(started.status).toBe(202);
    const job = await jobEnded(rt.url, started.body.job_id, 60_000);
    expect(job.result).toMatchObject({ status: 'complete', files_failed: 1 });
    const errors = job.entries.filter((entry: { event?: { type: string } }) => entry.event?.type === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        state: 'running',
        event: expect.objectContaining({ error_type: 'ContentProcessingError', recoverable: true }),
      }),
    ]);
    expect(errors[0].event.error_message).toMatch(
      /^batch\/looping\.mp4: Transcription chunk 0 .* looping answer/,
    );
  });
});
