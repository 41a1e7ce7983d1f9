/**
 * Media figures with the embedded defaults on this machine: seconds of processing per minute of video
 * (keyframes by scene change and 1 a second, OCR of each, speech spans), peak memory of the process, OCR ms per
 * keyframe, and the same video with a loopback transcription server speaking `/v1/audio/transcriptions`.
 * The test media are made here: espeak-ng speech, scenes with text drawn by the packaged ffmpeg.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
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
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
