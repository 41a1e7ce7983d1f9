/**
 * Media figures with the embedded defaults on this machine: seconds of processing per minute of video
 * (keyframes by scene change and 1 a second, OCR of each, speech spans), peak memory of the process, OCR ms per
 * keyframe, the same video with a loopback transcription server speaking `/v1/audio/transcriptions`, and the
 * time from `POST /ingestion/upload` to `complete` for the 60-second clip through a local runtime.
 * The test media are made here: espeak-ng speech, scenes with text drawn by the packaged ffmpeg.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  analyzeVideo,
  embeddedToolkit,
  installedFfmpegPath,
  type MediaToolkit,
  type OcrEngine,
  OpenAITranscriptionClient,
} from '@tessera/media';

const run = promisify(execFile);
const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf';
const WORDS = [
  'ALPHA',
  'BRAVO',
  'CHARLIE',
  'DELTA',
  'ECHO',
  'FOXTROT',
  'GOLF',
  'HOTEL',
  'INDIA',
  'JULIET',
  'KILO',
  'LIMA',
];

async function ffmpeg(args: string[]): Promise<void> {
  const binary = installedFfmpegPath();
  if (!binary) throw new Error('@ffmpeg-installer/linux-x64 is not installed');
  await run(binary, ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

/** 60 s: twelve 5-second scenes with a word each, over a minute of espeak-ng speech. */
async function minuteVideo(dir: string): Promise<string> {
  const speech = path.join(dir, 'speech.wav');
  const text = Array.from(
    { length: 9 },
    (_, i) =>
      `Scene ${i + 1}. Marie Curie measured the radiation of pitchblende again and wrote the numbers down.`,
  ).join(' ');
  await run('espeak-ng', ['-s', '150', '-w', speech, text]);
  const filters = WORDS.flatMap((word, i) => {
    const enable = `between(t,${i * 5},${i * 5 + 4.999})`;
    const colour = ['white', 'navy', 'darkgreen', 'maroon'][i % 4]!;
    return [
      `drawbox=x=0:y=0:w=iw:h=ih:color=${colour}:t=fill:enable='${enable}'`,
      `drawtext=fontfile=${FONT}:text='${word} ${i + 1}':fontsize=56:fontcolor=${colour === 'white' ? 'black' : 'white'}:x=60:y=300:enable='${enable}'`,
    ];
  });
  const file = path.join(dir, 'minute.mp4');
  await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    'color=c=white:s=1280x720:d=60:r=25',
    '-i',
    speech,
    '-vf',
    filters.join(','),
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-pix_fmt',
    'yuv420p',
    '-af',
    'apad',
    '-t',
    '60',
    '-c:a',
    'aac',
    file,
  ]);
  return file;
}

/** Wraps an OCR engine to time each recognition. */
function timedOcr(ocr: OcrEngine, times: number[]): OcrEngine {
  return {
    name: ocr.name,
    close: () => ocr.close(),
    async recognize(image) {
      const started = performance.now();
      try {
        return await ocr.recognize(image);
      } finally {
        times.push(performance.now() - started);
      }
    },
  };
}

/** Peak resident memory of this process (MiB) while `work` runs; ffmpeg's own process is not counted. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; peakMiB: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  try {
    const value = await work();
    return {
      value,
      seconds: (performance.now() - started) / 1000,
      peakMiB: Math.max(peak, process.memoryUsage().rss) / 2 ** 20,
    };
  } finally {
    clearInterval(timer);
  }
}

/** An OpenAI-compatible transcription server on loopback that answers each chunk at once. */
async function transcriptionServer(): Promise<{ url: string; requests: number; close(): Promise<void> }> {
  const state = { url: '', requests: 0, close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      state.requests++;
      const form = await new Response(Buffer.concat(chunks), {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
      const wav = Buffer.from(await (form.get('file') as Blob).arrayBuffer());
      const seconds = wav.readUInt32LE(40) / 2 / wav.readUInt32LE(24);
      const text = 'Marie Curie measured the radiation of pitchblende again.';
      const body =
        form.get('response_format') === 'json'
          ? { text }
          : { text, segments: [{ start: 0, end: seconds, text }], duration: seconds, language: 'english' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}

const root = path.resolve(import.meta.dirname, '..');

/** `npm start` on its own ports and data directory, without the web client. */
async function startRuntime(dataDir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = 28210;
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: {
      ...process.env,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_PORT: String(port),
      TESSERA_EMULATOR_PORT: String(port + 1),
      TESSERA_LOG_LEVEL: 'warn',
      TESSERA_WEB: 'off',
    },
    stdio: 'ignore',
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  for (;;) {
    const ok = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    if (performance.now() - started > 90_000) throw new Error('the runtime did not start in 90 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGINT');
      await exited;
    },
  };
}

/** Seconds from the upload's request to its job's `complete`, and the job's result. */
async function uploadToComplete(url: string, name: string, bytes: Uint8Array) {
  const started = performance.now();
  const form = new FormData();
  form.set('tenant_id', 'bench');
  form.append('file', new Blob([bytes]), name);
  const submitted = (await (
    await fetch(`${url}/ingestion/upload`, { method: 'POST', body: form })
  ).json()) as {
    job_id: string;
  };
  for (;;) {
    const status = (await (await fetch(`${url}/ingestion/${submitted.job_id}/events`)).json()) as {
      state: string;
      result?: { documents_fed: number; graph_nodes: number; processing_time: number };
      error?: string;
    };
    if (status.state === 'complete')
      return { seconds: (performance.now() - started) / 1000, result: status.result! };
    if (status.state === 'failed' || status.state === 'cancelled')
      throw new Error(`the upload ended ${status.state}: ${status.error}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function uploadBench(video: string): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'media-bench-runtime-'));
  const runtime = await startRuntime(dataDir);
  try {
    await fetch(`${runtime.url}/admin/tenants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: 'bench' }),
    });
    const bytes = new Uint8Array(await readFile(video));
    console.log(
      `\nUpload to complete through the local runtime, the same 60-second clip (${((await stat(video)).size / 2 ** 20).toFixed(1)} MiB, embedded defaults; target ≤ 15 s)`,
    );
    for (const [label, name] of [
      ['first upload (the runtime loads OCR and the speech model)', 'clip-1.mp4'],
      ['second upload', 'clip-2.mp4'],
      ['third upload', 'clip-3.mp4'],
    ] as const) {
      const { seconds, result } = await uploadToComplete(runtime.url, name, bytes);
      console.log(
        `  ${label}: ${seconds.toFixed(2)} s (job ${result.processing_time.toFixed(2)} s; ${result.documents_fed} frame documents, ${result.graph_nodes} graph nodes)`,
      );
    }
  } finally {
    await runtime.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function mediaBench(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'media-bench-'));
  try {
    const video = await minuteVideo(dir);
    const shared = await embeddedToolkit();
    const ocrTimes: number[] = [];
    const toolkit: MediaToolkit = { ...shared, ocr: timedOcr(shared.ocr, ocrTimes) };
    const config = { fps: 1, max_frames: 300 };
    console.log('\nMedia analysis, 60-second 1280×720 video (embedded defaults)');

    const cold = await measured(() => analyzeVideo(video, { toolkit, frameExtraction: config }));
    const keyframes = cold.value.keyframes.length;
    const read = cold.value.keyframes.filter((k) => k.ocr_text.includes(' ')).length;
    console.log(
      `  first run (OCR worker and speech model start): ${cold.seconds.toFixed(2)} s, ${keyframes} keyframes, ${read} with their word read`,
    );
    ocrTimes.length = 0;
    const warm = await measured(() => analyzeVideo(video, { toolkit, frameExtraction: config }));
    const ocrMs = ocrTimes.reduce((a, b) => a + b, 0) / ocrTimes.length;
    console.log(`  warm: ${warm.seconds.toFixed(2)} s per minute of video (keyframes + OCR + speech spans)`);
    console.log(`  OCR: ${ocrMs.toFixed(0)} ms per keyframe (mean of ${ocrTimes.length}, 1280×720)`);
    console.log(
      `  peak resident memory of the process: ${Math.max(cold.peakMiB, warm.peakMiB).toFixed(0)} MiB`,
    );
    console.log(
      `  speech spans: ${warm.value.speech_spans.length}, ${warm.value.speech_spans.reduce((s, x) => s + x.end - x.start, 0).toFixed(1)} s of speech`,
    );

    const server = await transcriptionServer();
    try {
      const transcriber = new OpenAITranscriptionClient({ baseURL: server.url, model: 'whisper-1' });
      const withTranscript = await measured(() =>
        analyzeVideo(video, { toolkit, frameExtraction: config, transcriber }),
      );
      console.log(
        `  with a loopback transcription server: ${withTranscript.seconds.toFixed(2)} s per minute, ${server.requests} requests, ${withTranscript.value.transcript.length} transcript segments, peak ${withTranscript.peakMiB.toFixed(0)} MiB`,
      );
    } finally {
      await server.close();
    }
    await shared.ocr.close();
    await uploadBench(video);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
