/**
 * The media pipelines over the in-memory fakes with the real media tools (integration: the packaged ffmpeg,
 * tesseract.js and Silero VAD run here): videos, audio and images made on the spot become documents of their
 * profiles' schemas and segments for the graph pass; bad media fails with its type; temporary files go.
 */
import { mkdtemp, readdir, readFile, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTenant } from '@tessera/tenancy';
import { type FakeDomains, fakeDomains } from '@tessera/testing/fakes';
import { sceneVideo, speechWav, textImage } from '@tessera/testing/media';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runJob, submitUpload } from '../src';
import { loadMediaTools } from '../src/pipelines/media-tools';
import { capitalized } from './support';

// Spooled files and the analyses' temporary files go to a directory of this test's own (set before the
// ingestion settings are read), so that nothing left behind can hide among other processes' files.
const spool = vi.hoisted(() => {
  const fs = process.getBuiltinModule('node:fs');
  const os = process.getBuiltinModule('node:os');
  const made = fs.mkdtempSync(`${os.tmpdir()}/ingest-spool-`);
  process.env.TESSERA_MEDIA_SPOOL_DIR = made;
  return made;
});

let dir: string;
let h: FakeDomains;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ingest-media-'));
  h = fakeDomains({ entities: capitalized });
  h.ingestion.media = loadMediaTools;
  await createTenant(h.tenancy, { tenant_id: 'acme', created_by: 'test' });
});

afterAll(async () => {
  await (await (await loadMediaTools()).embeddedToolkit()).ocr.close();
  await rm(dir, { recursive: true, force: true });
  await rm(spool, { recursive: true, force: true });
});

async function ingestFiles(files: { name: string; path?: string; bytes?: Uint8Array }[]) {
  const loaded = await Promise.all(
    files.map(async (f) => ({ name: f.name, bytes: f.bytes ?? new Uint8Array(await readFile(f.path!)) })),
  );
  const submitted = await submitUpload(h.ingestion, { tenant_id: 'acme', files: loaded });
  for (let messages = h.ingestion.queue.receive(); messages.length > 0; ) {
    for (const message of messages) await runJob(h.ingestion, message.job_id);
    messages = h.ingestion.queue.receive();
  }
  return (await h.ingestion.jobs.get(submitted.job_id))!;
}

/** A source's stored documents, in their order. */
const documentsOf = (schema: string, source: string): Record<string, unknown>[] =>
  [...h.search.requireTable(schema).rows.values()]
    .filter((row) => row.source_doc_id === source)
    .sort((a, b) => String(a.document_id).localeCompare(String(b.document_id), 'en', { numeric: true }));

describe('the video pipeline (integration: ffmpeg, tesseract.js, Silero VAD)', () => {
  it('indexes each keyframe with its time and text, says what it skipped, and extracts entities from OCR', async () => {
    const speech = await speechWav(dir, 'speech.wav', 'Marie Curie discovered polonium in Paris.');
    const video = await sceneVideo(
      dir,
      'lecture.mp4',
      [
        { text: 'Warsaw River', seconds: 3, background: 'white' },
        { text: 'Paris Laboratory', seconds: 3, background: 'navy' },
      ],
      speech,
    );
    const job = await ingestFiles([{ name: 'lecture.mp4', path: video }]);
    expect(job.state).toBe('complete');
    const result = job.result!;
    expect(result.files[0]).toMatchObject({
      status: 'indexed',
      skipped: {
        transcription: expect.stringContaining('no transcription endpoint'),
        captioning: expect.stringContaining('no captioning endpoint'),
      },
      media: { kind: 'video', keyframes: expect.any(Number), transcript_segments: 0 },
    });
    expect(result.skipped).toEqual(result.files[0]!.skipped);
    // No transcript: the speech spans say where someone speaks.
    expect(result.speech_spans!.length).toBeGreaterThanOrEqual(1);
    expect(result.speech_spans![0]!.start).toBeLessThan(1);

    const frames = documentsOf('video_frames_acme_acme', 'lecture.mp4');
    expect(frames.length).toBe(result.documents_fed);
    expect(frames.map((f) => f.frame_index)).toEqual(frames.map((_, i) => i));
    for (const frame of frames) {
      expect(frame.ocr_text).toBe((frame.ts_start as number) < 2.9 ? 'Warsaw River' : 'Paris Laboratory');
      expect(frame.caption).toBeNull();
      expect(frame.start_time).toBe(frame.ts_start);
      expect(frame.frame_id).toBe(frame.frame_index);
    }
    expect(frames.some((f) => Math.abs((f.ts_start as number) - 3) < 0.15)).toBe(true);
    // The OCR blocks are the graph pass's segments; their frame documents carry their node ids.
    expect(result.graph_nodes).toBeGreaterThanOrEqual(2);
    const paris = frames.find((f) => f.ocr_text === 'Paris Laboratory')!;
    expect(paris.entity_ids).toContain('paris_laboratory');
    const graph = await h.graph.store.graph('knowledge_graph_acme_acme');
    expect(graph.nodes.get('paris_laboratory')!.mentions[0]).toMatchObject({
      source_doc_id: 'lecture.mp4',
      segment_id: expect.stringMatching(/^frame_\d+_ocr_0$/),
      modality: 'video',
    });
  });

  it('indexes a silent video without text, with no graph extraction', async () => {
    const video = await sceneVideo(dir, 'blank.mp4', [{ text: '', seconds: 2, background: 'white' }], 'none');
    const job = await ingestFiles([{ name: 'blank.mp4', path: video }]);
    expect(job.result).toMatchObject({
      status: 'complete',
      graph_nodes: 0,
      graph_edges: 0,
      claims: 'not applicable: no text for the graph pass',
      skipped: { transcription: 'the video has no audio track' },
    });
    expect(job.result!.documents_fed).toBeGreaterThanOrEqual(1);
  });

  it('fails a truncated MP4 as CorruptMedia and a PNG named .mp4 as ContentTypeMismatch', async () => {
    const video = await sceneVideo(
      dir,
      'cut.mp4',
      [{ text: 'CUT', seconds: 2, background: 'white' }],
      'none',
    );
    await truncate(video, 2000);
    const png = await textImage(dir, 'really.png', ['PICTURE']);
    const job = await ingestFiles([{ name: 'cut.mp4', path: video }]);
    expect(job.result).toMatchObject({ status: 'failed', error_type: 'CorruptMedia', documents_fed: 0 });
    expect(job.result!.error).toContain('cut.mp4');
    // Refused at submit, where the bytes are in hand.
    await expect(ingestFiles([{ name: 'picture.mp4', path: png }])).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('picture.mp4 holds PNG data'),
    });
  });
});

describe('the audio and image pipelines (integration)', () => {
  it('indexes speech spans of audio without a transcript, and names them in the result', async () => {
    const speech = await speechWav(dir, 'talk.wav', 'The samples were measured twice at noon.');
    const job = await ingestFiles([{ name: 'talk.wav', path: speech }]);
    expect(job.result).toMatchObject({
      status: 'complete',
      graph_nodes: 0,
      skipped: { transcription: expect.stringContaining('no transcription endpoint') },
      files: [{ media: { kind: 'audio', transcript_segments: 0 } }],
    });
    expect(job.result!.speech_spans!.length).toBeGreaterThanOrEqual(1);
    const documents = documentsOf('audio_acme_acme', 'talk.wav');
    expect(documents.length).toBeGreaterThanOrEqual(1);
    expect(documents[0]).toMatchObject({ segment_id: 'speech_0', transcript: '', title: 'talk.wav' });
  });

  it('reads an image’s text into its document and the graph, and indexes one without text alone', async () => {
    const image = await textImage(dir, 'sign.png', ['Geneva Station']);
    const blank = await textImage(dir, 'blank.png', []);
    const job = await ingestFiles([
      { name: 'sign.png', path: image },
      { name: 'blank.png', path: blank },
    ]);
    expect(job.result).toMatchObject({ status: 'complete', files_failed: 0 });
    const [sign, empty] = job.result!.files;
    expect(sign).toMatchObject({ graph_nodes: 1, skipped: { captioning: expect.any(String) } });
    expect(empty).toMatchObject({ status: 'indexed', documents_fed: 1, graph_nodes: 0 });
    expect(documentsOf('image_acme_acme', 'sign.png')[0]).toMatchObject({
      title: 'sign.png',
      ocr_text: 'Geneva Station',
      caption: null,
      entity_ids: ['geneva_station'],
    });
  });
});

describe('spooling (integration)', () => {
  it('copies a media file in ranged reads into its own directory, and leaves nothing behind', async () => {
    const image = await textImage(dir, 'spooled.png', ['Ranged Reads']);
    const get = h.ingestion.blobs.get.bind(h.ingestion.blobs);
    const seen: { range?: { start: number; end: number }; spool: string[] }[] = [];
    h.ingestion.blobs.get = async (key, range) => {
      seen.push({ range, spool: await readdir(spool) });
      return get(key, range);
    };
    try {
      const job = await ingestFiles([{ name: 'spooled.png', path: image }]);
      expect(job.state).toBe('complete');
    } finally {
      h.ingestion.blobs.get = get;
    }
    // One ranged read of the file's own bytes, into a spool directory made for it.
    expect(seen).toEqual([
      {
        range: { start: 0, end: (await readFile(image)).length },
        spool: [expect.stringMatching(/^tessera-spool-/)],
      },
    ]);
    expect(await readdir(spool)).toEqual([]);
  });
});
