/** The embedded tools on their own: scanned-PDF OCR, the WebAssembly ffmpeg fallback, a 2-hour audio file. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { failure } from '@tessera/testing';
import { ffmpeg, sceneVideo, textImage } from '@tessera/testing/media';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CorruptMediaError,
  defaultFfmpeg,
  extractKeyframes,
  FrameExtraction,
  measureAudioSeconds,
  ocrPdfPages,
  probeMedia,
  SileroSpeechDetector,
  TesseractOcr,
} from '../src/index';
import { WasmFfmpeg } from '../src/wasm-ffmpeg';

let dir: string;
const ocr = new TesseractOcr();

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'media-tools-'));
});
afterAll(async () => {
  await ocr.close();
  await rm(dir, { recursive: true, force: true });
});

describe('ocrPdfPages (integration: unpdf, @napi-rs/canvas, tesseract.js)', () => {
  it('reads a scanned PDF (pages that are only images) page by page', async () => {
    const pdf = await PDFDocument.create();
    for (const words of ['Quarterly report on glaciers', 'Appendix with measurements']) {
      const png = await pdf.embedPng(
        await readFile(await textImage(dir, `${words.length}.png`, [words], '1240x400')),
      );
      pdf.addPage([595, 192]).drawImage(png, { x: 0, y: 0, width: 595, height: 192 });
    }
    const pages = await ocrPdfPages(await pdf.save(), { ocr });
    expect(pages).toEqual(['Quarterly report on glaciers', 'Appendix with measurements']);
  });

  it('fails bytes that are not a PDF with CorruptMedia', async () => {
    const error = await failure(
      ocrPdfPages(Buffer.from('%PDF-1.7 and then nothing'), { ocr, name: 'scan.pdf' }),
    );
    expect(error).toBeInstanceOf(CorruptMediaError);
    expect(error.message).toMatch(/^scan\.pdf could not be read as a PDF: /);
  });
});

describe('WasmFfmpeg, the fallback decoder (integration: @ffmpeg/core)', () => {
  it('probes and extracts keyframes as the native binary does', async () => {
    const video = await sceneVideo(
      dir,
      'wasm.mp4',
      [
        { text: 'FIRST', seconds: 2, background: 'white' },
        { text: 'SECOND', seconds: 2, background: 'navy' },
      ],
      'silence',
    );
    const wasm = new WasmFfmpeg();
    const probe = await probeMedia(wasm, video);
    expect(probe.duration).toBeCloseTo(4, 0);
    expect(probe).toMatchObject({
      video: { width: 640, height: 360 },
      audio: { sampleRate: 16000 },
    });
    const out = await mkdtemp(path.join(dir, 'frames-'));
    const frames = await extractKeyframes(wasm, video, {
      dir: out,
      config: FrameExtraction.parse({ fps: 0.25, max_frames: 10 }),
      duration: probe.duration,
    });
    expect(frames.map((f) => f.ts_start)).toEqual([0, 2]);
    expect(await readdir(out)).toEqual(['000001.png', '000002.png']);
    expect((await ocr.recognize(frames[1]!.file)).text).toBe('SECOND');
    expect(await measureAudioSeconds(wasm, video)).toBeCloseTo(4, 1);
  });

  it('fails an undecodable file with CorruptMedia', async () => {
    const bad = path.join(dir, 'bad.mp4');
    await (await import('node:fs/promises')).writeFile(bad, 'not media');
    expect(await failure(probeMedia(new WasmFfmpeg(), bad))).toBeInstanceOf(CorruptMediaError);
  });
});

/** Runs `work` and answers how far the process's resident memory rose above where it started, in MiB. */
async function rssGrowth(work: () => Promise<void>): Promise<number> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return (Math.max(peak, process.memoryUsage().rss) - before) / 2 ** 20;
}

describe('long audio (integration: streaming decode and speech detection)', () => {
  it('decodes a 2-hour file as a stream, with flat memory', async () => {
    const long = path.join(dir, 'two-hours.flac');
    await ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '7200', '-c:a', 'flac', long]);
    const native = await defaultFfmpeg();
    // 2 h at 16 kHz is 230 MB of 16-bit samples; streamed, the process holds a few pipe buffers of it.
    const growth = await rssGrowth(async () => {
      expect(await measureAudioSeconds(native, long)).toBeCloseTo(7200, 0);
    });
    expect(growth).toBeLessThan(64);
  }, 120_000);

  it('finds the speech in ten minutes of silence, streaming frame by frame', async () => {
    const speech = path.join(dir, 'speech.wav');
    await (await import('@tessera/testing/media')).speechWav(
      dir,
      'speech.wav',
      'The measurements were taken at noon.',
    );
    const file = path.join(dir, 'ten-minutes.flac');
    await ffmpeg([
      '-i',
      speech,
      '-af',
      'adelay=300000,apad',
      '-t',
      '600',
      '-ar',
      '16000',
      '-ac',
      '1',
      '-c:a',
      'flac',
      file,
    ]);
    const detector = new SileroSpeechDetector(await defaultFfmpeg());
    let spans: { start: number; end: number }[] = [];
    const growth = await rssGrowth(async () => {
      spans = await detector.detect(file);
    });
    expect(spans.length).toBeGreaterThan(0);
    for (const span of spans) expect([span.start >= 299.5, span.end <= 306]).toEqual([true, true]);
    expect(growth).toBeLessThan(96);
  }, 120_000);
});
