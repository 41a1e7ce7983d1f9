/**
 * The analyses on real media made here: espeak-ng speech, ffmpeg-rendered scenes with text, text images; run
 * through the packaged ffmpeg, tesseract.js and Silero VAD, with loopback transcription and vision servers.
 */
import { copyFile, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { failure, useServers } from '@tessera/testing';
import {
  ffmpeg,
  sceneVideo,
  speechWav,
  textImage,
  transcriptionServer,
  visionChat,
} from '@tessera/testing/media';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  analyzeAudio,
  analyzeImage,
  analyzeMedia,
  analyzeVideo,
  CAPTIONING_NOT_CONFIGURED,
  ContentTypeMismatchError,
  CorruptMediaError,
  embeddedToolkit,
  mediaSegments,
  OpenAICaptioner,
  OpenAITranscriptionClient,
  TRANSCRIPTION_NOT_CONFIGURED,
  type VideoAnalysis,
} from '../src/index';

let dir: string;
let speech: string;
let video: string;
const SAID = 'Marie Curie discovered polonium in Paris. She was a brilliant scientist.';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'media-test-'));
  speech = await speechWav(dir, 'speech.wav', SAID);
  video = await sceneVideo(
    dir,
    'scenes.mp4',
    [
      { text: 'ALPHA RIVER', seconds: 3, background: 'white' },
      { text: 'BRAVO MOUNTAIN', seconds: 3, background: 'navy' },
      { text: 'CHARLIE FOREST', seconds: 2, background: 'darkgreen' },
    ],
    speech,
  );
});

afterAll(async () => {
  await (await embeddedToolkit()).ocr.close();
  await rm(dir, { recursive: true, force: true });
});

const near = (a: number, b: number) => Math.abs(a - b) < 0.15;

describe('analyzeVideo with the embedded defaults (integration: ffmpeg, tesseract.js, Silero VAD)', () => {
  let analysis: VideoAnalysis;
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'media-work-'));
    analysis = await analyzeVideo(video, { frameExtraction: { fps: 0.5, max_frames: 20 }, tempDir: work });
  });

  it('takes a keyframe at each scene change and at least one every 1/fps seconds, with their windows', () => {
    const times = analysis.keyframes.map((k) => k.ts_start);
    for (const cut of [0, 3, 6]) expect(times.some((t) => near(t, cut))).toBe(true);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(2.001);
    expect(analysis.keyframes.map((k) => k.frame_index)).toEqual(times.map((_, i) => i));
    for (const [i, k] of analysis.keyframes.entries()) {
      expect(k.segment_id).toBe(`frame_${i}`);
      expect(k.ts_end).toBe(analysis.keyframes[i + 1]?.ts_start ?? analysis.duration);
    }
  });

  it('reads each keyframe’s text by OCR', () => {
    for (const k of analysis.keyframes) {
      const expected =
        k.ts_start < 2.9 ? 'ALPHA RIVER' : k.ts_start < 5.9 ? 'BRAVO MOUNTAIN' : 'CHARLIE FOREST';
      expect(k.ocr_text).toBe(expected);
      expect(k.caption).toBeNull();
    }
  });

  it('finds the speech and says that transcription and captioning were skipped, naming its models', () => {
    expect(analysis.has_audio).toBe(true);
    expect(analysis.duration).toBeCloseTo(8, 0);
    expect(analysis.speech_spans.length).toBeGreaterThanOrEqual(1);
    const first = analysis.speech_spans[0]!;
    const last = analysis.speech_spans.at(-1)!;
    expect(first.start).toBeLessThan(1);
    expect(last.end).toBeGreaterThan(3);
    expect(last.end).toBeLessThan(7);
    expect(analysis.transcript).toEqual([]);
    expect(analysis.skipped).toEqual({
      transcription: TRANSCRIPTION_NOT_CONFIGURED,
      captioning: CAPTIONING_NOT_CONFIGURED,
    });
    expect(analysis.models.ocr).toMatch(/^embedded:tesseract\.js/);
    expect(analysis.models.speech).toMatch(/^embedded:silero-vad/);
    expect(analysis.models.decoder).toMatch(/^ffmpeg:.*@ffmpeg-installer\/linux-x64\/ffmpeg$/);
  });

  it('leaves no temporary file behind', async () => {
    expect(await readdir(work)).toEqual([]);
  });

  it('gives the graph pass one OCR segment a frame, anchored at the frame’s time', () => {
    const segments = mediaSegments(analysis);
    expect(segments).toHaveLength(analysis.keyframes.length);
    expect(segments[0]).toEqual({
      segment_id: 'frame_0_ocr_0',
      text: 'ALPHA RIVER',
      ts_start: 0,
      ts_end: 0,
      modality: 'video',
      source: 'ocr',
    });
  });

  it('stretches the interval so max_frames frames cover the whole video', async () => {
    // One scene, so every frame is an interval frame: 8 s / 3 frames → one every 2.67 s (at 10 frames a second).
    const still = await sceneVideo(
      dir,
      'still.mp4',
      [{ text: 'ONE SCENE', seconds: 8, background: 'white' }],
      'none',
    );
    const capped = await analyzeVideo(still, { frameExtraction: { fps: 10, max_frames: 3 } });
    expect(capped.keyframes).toHaveLength(3);
    expect(capped.keyframes.map((k) => k.ts_start)).toEqual([0, 2.7, 5.4]);
  });
});

const servers = useServers();

describe('analyzeVideo with configured endpoints (integration: loopback transcription and vision servers)', () => {
  it('transcribes the speech with absolute times and captions every keyframe', async () => {
    const transcription = await servers.start(
      transcriptionServer((request) => ({
        text: SAID,
        segments: [
          { start: 0.2, end: 2.2, text: 'Marie Curie discovered polonium in Paris.' },
          { start: 2.2, end: Math.min(request.seconds, 4.3), text: 'She was a brilliant scientist.' },
        ],
      })),
    );
    const vision = await servers.start(
      visionChat((_image, _prompt, count) => `A slide with large words, number ${count}.`),
    );
    const result = await analyzeVideo(video, {
      frameExtraction: { fps: 0.5, max_frames: 20 },
      transcriber: new OpenAITranscriptionClient({ baseURL: `${transcription.url}/v1`, model: 'whisper-1' }),
      captioner: new OpenAICaptioner({ baseURL: `${vision.url}/v1`, model: 'vl' }),
    });
    expect(result.transcript).toEqual([
      {
        segment_id: 'transcript_0',
        index: 0,
        text: 'Marie Curie discovered polonium in Paris.',
        ts_start: 0.2,
        ts_end: 2.2,
      },
      {
        segment_id: 'transcript_1',
        index: 1,
        text: 'She was a brilliant scientist.',
        ts_start: 2.2,
        ts_end: 4.3,
      },
    ]);
    // One 8-second chunk: its segments reach the end of the detected speech, so no plain-JSON request.
    expect(transcription.requests).toHaveLength(1);
    expect(result.keyframes.map((k) => k.caption)).toEqual(
      result.keyframes.map((_, i) => `A slide with large words, number ${i + 1}.`),
    );
    expect(result.skipped).toEqual({});
    expect(result.models).toMatchObject({
      transcription: 'transcription:whisper-1',
      captioning: 'caption:vl',
    });
    const sources = mediaSegments(result).map((s) => s.source);
    expect(sources.filter((s) => s === 'transcript')).toHaveLength(2);
    expect(sources.filter((s) => s === 'caption')).toHaveLength(result.keyframes.length);
  });

  it('sends only the chunks where speech was detected, offset to their place in the file', async () => {
    const long = path.join(dir, 'late-speech.wav');
    // 65 s: silence, the sentence at 40 s, silence again.
    await ffmpeg(['-i', speech, '-af', 'adelay=40000,apad', '-t', '65', '-ar', '16000', '-ac', '1', long]);
    const transcription = await servers.start(
      transcriptionServer((request) => ({
        text: 'Polonium.',
        segments: [{ start: 10, end: request.seconds - 15.5, text: 'Polonium.' }],
      })),
    );
    const result = await analyzeAudio(long, {
      transcriber: new OpenAITranscriptionClient({ baseURL: `${transcription.url}/v1`, model: 'whisper-1' }),
    });
    expect(result.duration).toBeCloseTo(65, 1);
    expect(result.speech_spans.length).toBeGreaterThan(0);
    for (const span of result.speech_spans) expect([span.start > 39.5, span.end < 46]).toEqual([true, true]);
    expect(transcription.requests).toHaveLength(1);
    expect(result.transcript).toEqual([
      { segment_id: 'transcript_0', index: 0, text: 'Polonium.', ts_start: 40, ts_end: 44.5 },
    ]);
    expect(result.skipped).toEqual({});
  });

  it('fails the file with TranscriptionChunkError when a chunk keeps looping', async () => {
    const transcription = await servers.start(
      transcriptionServer(() => ({ text: 'you you you you you you you you', segments: [] })),
    );
    const error = await failure(
      analyzeAudio(speech, {
        transcriber: new OpenAITranscriptionClient({ baseURL: `${transcription.url}/v1`, model: 'w' }),
      }),
    );
    expect(error.message).toMatch(
      /^Transcription chunk 0 \(0\.0–\d\.\d s\) is unusable after 2 attempts: looping answer/,
    );
    expect(transcription.requests).toHaveLength(2);
  });
});

describe('analyzeAudio and analyzeImage (integration)', () => {
  it('answers speech spans for an audio file and says the transcript was skipped', async () => {
    const result = await analyzeMedia(speech, '.wav');
    expect(result.kind).toBe('audio');
    if (result.kind !== 'audio') return;
    expect(result.speech_spans.length).toBeGreaterThanOrEqual(1);
    expect(result.skipped).toEqual({ transcription: TRANSCRIPTION_NOT_CONFIGURED });
    expect(mediaSegments(result)).toEqual([]);
  });

  it('reads the text of PNG and JPEG images, and none from an image without text', async () => {
    const png = await textImage(dir, 'sign.png', ['Laboratory of Radium', 'Entrance B']);
    const jpg = await textImage(dir, 'sign.jpg', ['Pitchblende samples']);
    const blank = await textImage(dir, 'blank.png', []);
    const [a, b, c] = [await analyzeImage(png), await analyzeMedia(jpg, '.jpg'), await analyzeImage(blank)];
    expect(a).toMatchObject({
      kind: 'image',
      width: 900,
      height: 300,
      ocr_text: 'Laboratory of Radium\nEntrance B',
      caption: null,
    });
    expect(a.skipped).toEqual({ captioning: CAPTIONING_NOT_CONFIGURED });
    expect(b.kind === 'image' && b.ocr_text).toBe('Pitchblende samples');
    expect(c.ocr_text).toBe('');
    expect(mediaSegments(c)).toEqual([]);
  });
});

describe('bad media (integration)', () => {
  it('refuses a PNG named .mp4 with ContentTypeMismatch', async () => {
    const png = await textImage(dir, 'liar.png', ['hello']);
    const liar = path.join(dir, 'liar.mp4');
    await copyFile(png, liar);
    const error = await failure(analyzeMedia(liar, '.mp4'));
    expect(error).toBeInstanceOf(ContentTypeMismatchError);
    expect(error.message).toBe('liar.mp4 holds PNG data (image/png), not what its extension .mp4 says');
  });

  it('fails a truncated MP4, a text file named .mp4 and an empty file with CorruptMedia', async () => {
    const truncated = path.join(dir, 'truncated.mp4');
    await copyFile(video, truncated);
    await truncate(truncated, Math.floor((await stat(video)).size / 2));
    const text = path.join(dir, 'notes.mp4');
    await writeFile(text, 'These are my notes, not a video.\n'.repeat(20));
    const empty = path.join(dir, 'empty.mp4');
    await writeFile(empty, '');
    for (const [file, pattern] of [
      [truncated, /^truncated\.mp4 cannot be decoded: .*(moov atom not found|Invalid data)/],
      [text, /^notes\.mp4 cannot be decoded: notes\.mp4: Invalid data found when processing input$/],
      [empty, /^empty\.mp4 is empty$/],
    ] as const) {
      const error = await failure(analyzeMedia(file, '.mp4'));
      expect(error).toBeInstanceOf(CorruptMediaError);
      expect(error).toMatchObject({ errorType: 'CorruptMedia', status: 400 });
      expect(error.message).toMatch(pattern);
    }
  });

  it('fails a video without a single frame with CorruptMedia', async () => {
    const zero = path.join(dir, 'zero.mp4');
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'color=c=black:s=320x240:r=10',
      '-frames:v',
      '0',
      '-c:v',
      'libx264',
      zero,
    ]);
    const error = await failure(analyzeMedia(zero, '.mp4'));
    expect(error).toBeInstanceOf(CorruptMediaError);
    expect(error.message).toMatch(/^zero\.mp4 (cannot be decoded|has no (audio or )?video stream)/);
  });

  it('indexes a silent video by its frames, with no speech and no graph text but OCR', async () => {
    const silent = await sceneVideo(
      dir,
      'silent.mp4',
      [{ text: 'QUIET ROOM', seconds: 2, background: 'white' }],
      'silence',
    );
    const mute = await sceneVideo(
      dir,
      'mute.mp4',
      [{ text: 'NO TRACK', seconds: 2, background: 'white' }],
      'none',
    );
    const a = await analyzeVideo(silent);
    const b = await analyzeVideo(mute);
    expect(a.speech_spans).toEqual([]);
    expect(a.keyframes.map((k) => k.ocr_text)).toContain('QUIET ROOM');
    expect(a.skipped.transcription).toBe(TRANSCRIPTION_NOT_CONFIGURED);
    expect(b.has_audio).toBe(false);
    expect(b.skipped.transcription).toBe('the video has no audio track');
    expect(mediaSegments(a).every((s) => s.source === 'ocr')).toBe(true);
  });

  it('stops when its signal is aborted and removes its temporary files', async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'media-abort-'));
    const controller = new AbortController();
    const running = analyzeVideo(video, {
      signal: controller.signal,
      tempDir: work,
      frameExtraction: { fps: 5, max_frames: 40 },
    });
    setTimeout(() => controller.abort(), 50);
    const error = await failure(running);
    expect(error.name).toBe('AbortError');
    expect(await readdir(work)).toEqual([]);
    await rm(work, { recursive: true });
    expect((await readFile(video)).length).toBeGreaterThan(0);
  });
});
