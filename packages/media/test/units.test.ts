import { describe, expect, it } from 'vitest';
import {
  CAPTIONING_NOT_CONFIGURED,
  createMediaServices,
  isSilent,
  keptText,
  MediaInferenceServices,
  mediaSegments,
  parseMediaEnv,
  resolveMediaServices,
  SILENCE_RMS,
  SPEECH_GATE_DEFAULTS,
  SpeechGate,
  TRANSCRIPTION_NOT_CONFIGURED,
  VAD_FRAME_SAMPLES,
  type VideoAnalysis,
} from '../src/index';

describe('SpeechGate', () => {
  const run = (probabilities: number[]) => {
    const gate = new SpeechGate(SPEECH_GATE_DEFAULTS, 0.1);
    for (const p of probabilities) gate.push(p);
    return gate.end();
  };
  const quiet = (n: number) => Array<number>(n).fill(0.05);
  const loud = (n: number) => Array<number>(n).fill(0.9);

  it('opens a span at the first speech frame and closes it after 8 quiet frames', () => {
    expect(run([...quiet(5), ...loud(10), ...quiet(20)])).toEqual([{ start: 0.5, end: 2.3 }]);
  });

  it('keeps a span open through fewer than 8 quiet frames and through frames between the thresholds', () => {
    expect(run([...loud(5), ...quiet(7), ...loud(5), ...Array(20).fill(0.4), ...quiet(8)])).toEqual([
      { start: 0, end: 4.5 },
    ]);
  });

  it('drops a span of fewer than 3 speech frames (a click), and closes one still open at the end', () => {
    expect(run([...quiet(3), ...loud(2), ...quiet(10)])).toEqual([]);
    expect(run([...quiet(2), ...loud(4)])).toEqual([{ start: 0.2, end: 0.6 }]);
  });
});

describe('isSilent', () => {
  const frame = (sample: (i: number) => number) =>
    Float32Array.from({ length: VAD_FRAME_SAMPLES }, (_, i) => sample(i));

  it('takes digital silence and sound under -60 dBFS as silence, and quiet speech levels as sound', () => {
    expect(isSilent(frame(() => 0))).toBe(true);
    // A sine's RMS is its amplitude / √2: just under and just over the threshold.
    const sine = (amplitude: number) => frame((i) => amplitude * Math.sin((2 * Math.PI * 440 * i) / 16_000));
    expect(isSilent(sine(SILENCE_RMS * Math.SQRT2 * 0.95))).toBe(true);
    expect(isSilent(sine(SILENCE_RMS * Math.SQRT2 * 1.05))).toBe(false);
    // -40 dBFS, a whisper far from the microphone.
    expect(isSilent(sine(0.01))).toBe(false);
  });
});

describe('keptText', () => {
  const word = (text: string, confidence: number) => ({
    text,
    confidence,
    bbox: { x0: 0, y0: 0, x1: 1, y1: 1 },
  });

  it('drops words under the confidence floor and keeps lines and blocks', () => {
    const result = keptText(
      [
        {
          paragraphs: [
            {
              lines: [
                { words: [word('ALPHA', 96), word('~;', 31), word('RIVER', 91)] },
                { words: [word('|', 12)] },
              ],
            },
          ],
        },
        { paragraphs: [{ lines: [{ words: [word('Chapter', 88)] }, { words: [word('two', 75)] }] }] },
      ],
      60,
    );
    expect(result.text).toBe('ALPHA RIVER\n\nChapter\ntwo');
    expect(result.blocks).toEqual(['ALPHA RIVER', 'Chapter\ntwo']);
    expect(result.words.map((w) => w.text)).toEqual(['ALPHA', 'RIVER', 'Chapter', 'two']);
    expect(keptText(null, 60)).toEqual({ text: '', blocks: [], words: [] });
  });
});

describe('mediaSegments', () => {
  it('yields transcript segments, frame captions and OCR blocks anchored at their frame’s time', () => {
    const analysis: VideoAnalysis = {
      kind: 'video',
      duration: 40,
      width: 640,
      height: 360,
      has_audio: true,
      keyframes: [
        { frame_index: 0, segment_id: 'frame_0', ts_start: 0, ts_end: 14, ocr_text: '', caption: null },
        {
          frame_index: 1,
          segment_id: 'frame_1',
          ts_start: 14,
          ts_end: 40,
          ocr_text: 'CURIE INSTITUTE\n\nParis 1911',
          caption: 'A woman in a lab coat.',
        },
      ],
      transcript: [
        { segment_id: 'transcript_0', index: 0, text: 'Marie Curie speaks.', ts_start: 2, ts_end: 6 },
      ],
      speech_spans: [{ start: 2, end: 6 }],
      skipped: {},
      models: {},
    };
    expect(mediaSegments(analysis)).toEqual([
      {
        segment_id: 'transcript_0',
        text: 'Marie Curie speaks.',
        ts_start: 2,
        ts_end: 6,
        modality: 'video',
        source: 'transcript',
      },
      {
        segment_id: 'frame_1',
        text: 'A woman in a lab coat.',
        ts_start: 14,
        ts_end: 14,
        modality: 'video',
        source: 'caption',
      },
      {
        segment_id: 'frame_1_ocr_0',
        text: 'CURIE INSTITUTE',
        ts_start: 14,
        ts_end: 14,
        modality: 'video',
        source: 'ocr',
      },
      {
        segment_id: 'frame_1_ocr_1',
        text: 'Paris 1911',
        ts_start: 14,
        ts_end: 14,
        modality: 'video',
        source: 'ocr',
      },
    ]);
    expect(mediaSegments({ ...analysis, keyframes: [analysis.keyframes[0]!], transcript: [] })).toEqual([]);
  });
});

describe('media settings', () => {
  const env = parseMediaEnv({
    TESSERA_TRANSCRIPTION_URL: 'http://whisper:8000/v1',
    TESSERA_TRANSCRIPTION_MODEL: 'whisper-large-v3',
    TESSERA_TRANSCRIPTION_API_KEY: 'sk-env',
    TESSERA_VIDEO_EMBED_URL: 'http://xclip:9000',
    TESSERA_CAPTION_URL: '',
  });

  it('reads the endpoints, treats empty variables as unset and requires a model with a URL', () => {
    expect(env.captionUrl).toBeUndefined();
    expect(env.inferenceAttempts).toBe(3);
    expect(() => parseMediaEnv({ TESSERA_CAPTION_URL: 'http://vl:8000/v1' })).toThrow(
      'Invalid media settings: TESSERA_CAPTION_MODEL: required when TESSERA_CAPTION_URL is set',
    );
    expect(() => parseMediaEnv({ TESSERA_VIDEO_EMBED_URL: 'not a url' })).toThrow(/TESSERA_VIDEO_EMBED_URL/);
  });

  it('resolves services from the environment, and a profile’s extra_config.inference_services over it', () => {
    expect(resolveMediaServices({}, env)).toEqual({
      transcription: {
        baseURL: 'http://whisper:8000/v1',
        model: 'whisper-large-v3',
        apiKey: 'sk-env',
        timeoutS: 120,
        attempts: 3,
      },
      videoEmbed: { url: 'http://xclip:9000' },
    });
    const profile = MediaInferenceServices.parse({
      transcription_url: 'http://tenant-whisper/v1',
      transcription_language: 'fr',
      caption_url: 'http://vl/v1',
      caption_model: 'Qwen/Qwen2.5-VL-7B-Instruct',
      pooling_url: 'http://ignored-here',
    });
    const resolved = resolveMediaServices(profile, env);
    // The deployment's key never goes to a URL the profile chose.
    expect(resolved.transcription).toEqual({
      baseURL: 'http://tenant-whisper/v1',
      model: 'whisper-large-v3',
      language: 'fr',
      timeoutS: 120,
      attempts: 3,
    });
    expect(resolved.captioning?.model).toBe('Qwen/Qwen2.5-VL-7B-Instruct');
    const services = createMediaServices(resolved);
    expect(Object.keys(services).sort()).toEqual(['captioner', 'transcriber', 'videoEmbedder']);
    expect(() => resolveMediaServices({ caption_url: 'http://vl/v1' }, parseMediaEnv({}))).toThrow(
      /caption_model/,
    );
  });

  it('says what to set when a service is missing', () => {
    expect(TRANSCRIPTION_NOT_CONFIGURED).toMatch(/TESSERA_TRANSCRIPTION_URL/);
    expect(CAPTIONING_NOT_CONFIGURED).toMatch(/TESSERA_CAPTION_URL/);
    expect(createMediaServices(resolveMediaServices({}, parseMediaEnv({})))).toEqual({});
  });
});
