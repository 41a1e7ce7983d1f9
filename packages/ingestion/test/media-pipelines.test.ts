/** The shaping of media analyses into documents and segments, and cross-modal linking of a file's graph. */
import type { AudioAnalysis, ImageAnalysis, VideoAnalysis } from '@tessera/media';
import { mediaSegments } from '@tessera/media';
import { describe, expect, it } from 'vitest';
import { crossModalEdges } from '../src/extraction';
import { audioOutput, imageOutput, MAX_REPORTED_SPANS, videoOutput } from '../src/pipelines/media';
import { Lanes } from '../src/windows';

const video: VideoAnalysis = {
  kind: 'video',
  duration: 20,
  width: 640,
  height: 360,
  has_audio: true,
  keyframes: [
    { frame_index: 0, segment_id: 'frame_0', ts_start: 0, ts_end: 8, ocr_text: 'CURIE LAB', caption: null },
    {
      frame_index: 1,
      segment_id: 'frame_1',
      ts_start: 8,
      ts_end: 20,
      ocr_text: 'RADIUM\n\nPOLONIUM',
      caption: 'A woman in a lab coat.',
    },
  ],
  transcript: [
    { segment_id: 'transcript_0', index: 0, text: 'Marie Curie speaks.', ts_start: 1, ts_end: 7 },
    { segment_id: 'transcript_1', index: 1, text: 'She found radium.', ts_start: 7, ts_end: 12 },
  ],
  speech_spans: [{ start: 1, end: 12 }],
  skipped: {},
  models: { ocr: 'embedded:ocr' },
};

describe('videoOutput', () => {
  const output = videoOutput('talk.mp4', '.mp4', video, mediaSegments(video));

  it('makes one frame document a keyframe, with its times, text, caption and transcript window', () => {
    expect(output.documents.map((d) => d.fields)).toEqual([
      expect.objectContaining({
        title: 'talk.mp4',
        frame_index: 0,
        ts_start: 0,
        ts_end: 8,
        ocr_text: 'CURIE LAB',
        caption: null,
        frame_description: '',
        audio_transcript: 'Marie Curie speaks. She found radium.',
        frame_id: 0,
        start_time: 0,
        end_time: 8,
      }),
      expect.objectContaining({
        frame_index: 1,
        caption: 'A woman in a lab coat.',
        frame_description: 'A woman in a lab coat.',
        audio_transcript: 'She found radium.',
      }),
    ]);
  });

  it('gives each frame document the segments it carries: its caption, OCR blocks and the speech of its window', () => {
    expect(output.segments.map((s) => [s.segment_id, s.source])).toEqual([
      ['transcript_0', 'transcript'],
      ['transcript_1', 'transcript'],
      ['frame_0_ocr_0', 'ocr'],
      ['frame_1', 'caption'],
      ['frame_1_ocr_0', 'ocr'],
      ['frame_1_ocr_1', 'ocr'],
    ]);
    expect(output.documentSegments).toEqual([
      ['frame_0_ocr_0', 'transcript_0', 'transcript_1'],
      ['frame_1', 'frame_1_ocr_0', 'frame_1_ocr_1', 'transcript_1'],
    ]);
  });

  it('reports no speech spans when there is a transcript, and the analysis summary', () => {
    expect(output.report).toEqual({
      media: {
        kind: 'video',
        duration: 20,
        width: 640,
        height: 360,
        keyframes: 2,
        transcript_segments: 0 + 2,
        models: { ocr: 'embedded:ocr' },
      },
    });
  });
});

describe('audioOutput', () => {
  const base: AudioAnalysis = {
    kind: 'audio',
    duration: 100,
    transcript: [],
    speech_spans: [],
    skipped: { transcription: 'no endpoint' },
    models: {},
  };

  it('groups transcript segments into windows of about 30 seconds', () => {
    const transcript = [0, 10, 20, 35, 70].map((start, index) => ({
      segment_id: `transcript_${index}`,
      index,
      text: `part ${index}`,
      ts_start: start,
      ts_end: start + 8,
    }));
    const analysis = { ...base, transcript, skipped: {} };
    const output = audioOutput('talk.wav', '.wav', analysis, mediaSegments(analysis));
    expect(
      output.documents.map((d) => [
        d.fields.segment_id,
        d.fields.start_time,
        d.fields.end_time,
        d.fields.transcript,
      ]),
    ).toEqual([
      ['window_0', 0, 28, 'part 0 part 1 part 2'],
      ['window_1', 35, 43, 'part 3'],
      ['window_2', 70, 78, 'part 4'],
    ]);
    expect(output.documentSegments).toEqual([
      ['transcript_0', 'transcript_1', 'transcript_2'],
      ['transcript_3'],
      ['transcript_4'],
    ]);
    expect(output.report?.speech_spans).toBeUndefined();
  });

  it('indexes speech spans without a transcript, and names at most a thousand in the result', () => {
    const spans = Array.from({ length: 1500 }, (_, i) => ({ start: i * 4, end: i * 4 + 1 }));
    const analysis = { ...base, duration: 6000, speech_spans: spans };
    const output = audioOutput('long.wav', '.wav', analysis, []);
    expect(output.report?.speech_spans).toHaveLength(MAX_REPORTED_SPANS);
    expect(output.report?.skipped).toEqual({ transcription: 'no endpoint' });
    // Windows of about 30 s: eight spans each (their ends within 30 s of the window's first start).
    expect(output.documents).toHaveLength(Math.ceil(1500 / 8));
    expect(output.documents[0]!.fields).toMatchObject({
      segment_id: 'speech_0',
      start_time: 0,
      end_time: 29,
      transcript: '',
    });
    expect(output.segments).toEqual([]);
  });

  it('indexes a file without speech as one document spanning it', () => {
    const output = audioOutput('quiet.wav', '.wav', base, []);
    expect(output.documents.map((d) => d.fields)).toEqual([
      expect.objectContaining({ segment_id: 'audio', start_time: 0, end_time: 100, transcript: '' }),
    ]);
    expect(output.report?.speech_spans).toEqual([]);
  });
});

describe('imageOutput', () => {
  it('makes one document carrying every segment of the image', () => {
    const analysis: ImageAnalysis = {
      kind: 'image',
      width: 10,
      height: 10,
      ocr_text: 'EXIT',
      caption: 'A green sign.',
      skipped: {},
      models: {},
    };
    const output = imageOutput('sign.png', '.png', analysis, mediaSegments(analysis));
    expect(output.documents[0]!.fields).toMatchObject({
      title: 'sign.png',
      caption: 'A green sign.',
      ocr_text: 'EXIT',
    });
    expect(output.documentSegments).toEqual([['caption', 'ocr_0']]);
  });
});

describe('crossModalEdges', () => {
  const mention = (segment_id: string, ts: number) => ({
    source_doc_id: 'talk.mp4',
    segment_id,
    ts_start: ts,
    ts_end: ts,
    modality: 'video',
    evidence_span: '',
  });
  const output = videoOutput('talk.mp4', '.mp4', video, mediaSegments(video));
  const node = (name: string, label: string, mentions: ReturnType<typeof mention>[]) => ({
    name,
    description: '',
    kind: 'concept' as const,
    label,
    mentions,
  });

  it('links a caption holding a person word to the dominant Person, and names sharing a token', () => {
    const edges = crossModalEdges('talk.mp4', output, {
      nodes: [
        node('Marie Curie', 'Person', [mention('transcript_0', 1)]),
        node('woman in a lab coat', 'Concept', [mention('frame_1', 8)]),
        node('Curie Lab', 'Organization', [mention('frame_0_ocr_0', 0)]),
        // A mention in another file's segment of the same id is not this file's.
        node('Pierre Curie', 'Person', [{ ...mention('transcript_1', 7), source_doc_id: 'other.mp4' }]),
      ],
      edges: [],
      segments: {},
      claims: 'extracted',
    });
    expect(edges.map((e) => [e.source, e.target, e.provenance, e.segment_id, e.confidence])).toEqual([
      // Shared name tokens, from the OCR text to the transcript and to the caption.
      ['Curie Lab', 'Marie Curie', 'INFERRED', 'frame_0_ocr_0', 1],
      ['Curie Lab', 'woman in a lab coat', 'INFERRED', 'frame_0_ocr_0', 1],
      ['woman in a lab coat', 'Marie Curie', 'video_subject_inference', 'frame_1', 1],
    ]);
  });

  it('links nothing for a plain document', () => {
    const edges = crossModalEdges(
      'notes.md',
      {
        documents: [],
        segments: [{ segment_id: 'chunk_0', text: 'x', ts_start: 0, ts_end: 0, modality: 'text' }],
      },
      {
        nodes: [node('Marie Curie', 'Person', [mention('chunk_0', 0)])],
        edges: [],
        segments: {},
        claims: 'extracted',
      },
    );
    expect(edges).toEqual([]);
  });
});

describe('Lanes', () => {
  it('runs at most its limit of tasks at once, in call order', async () => {
    const lanes = new Lanes(1);
    const order: string[] = [];
    let active = 0;
    let most = 0;
    const task = (name: string) =>
      lanes.run(async () => {
        active++;
        most = Math.max(most, active);
        order.push(name);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active--;
      });
    await Promise.all([task('a'), task('b'), task('c')]);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(most).toBe(1);
  });

  it('frees its lane when a task fails', async () => {
    const lanes = new Lanes(1);
    await expect(lanes.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lanes.run(async () => 'next')).toBe('next');
  });
});
