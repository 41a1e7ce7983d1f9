/**
 * Media through `/ingestion/upload` on a runtime process with the embedded defaults only (no transcription
 * or captioning endpoint): videos, audio and images made here (espeak-ng speech, ffmpeg-drawn text) end
 * `complete` with their documents and, where text exists, graph nodes; search finds a frame by a word shown
 * on it; bad media fails with its type; a 2-hour file streams through with bounded memory.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ffmpeg, sceneVideo, speechWav, textImage } from '@tessera/testing/media';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobEnded, upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
let dir: string;
let speech: string;
let lecture: string;

const VIDEO = 'video_colpali_smol500_mv_frame';

const search = (query: string, profile: string) =>
  call(rt.url, 'POST', '/search/', { query, tenant_id: 'acme', profile, top_k: 5 });

const bytes = async (file: string) => new Uint8Array(await readFile(file));

/** Resident memory of a process, in MiB. */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

/** Posts a file through a presigned upload (no request-size cap) and waits for its job. */
async function presigned(name: string, file: string, timeoutMs = 60_000) {
  const size = (await stat(file)).size;
  const { status, body } = await call(rt.url, 'POST', '/ingestion/uploads', {
    tenant_id: 'acme',
    filename: name,
    size,
  });
  expect(status).toBe(201);
  const put = await fetch(body.upload.url, {
    method: 'PUT',
    body: await readFile(file),
    headers: body.upload.headers,
  });
  expect(put.status).toBe(200);
  return { jobId: body.job_id as string, ended: () => jobEnded(rt.url, body.job_id, timeoutMs, 200) };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'media-runtime-'));
  rt = await spawnRuntime();
  expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme' })).status).toBe(201);
  speech = await speechWav(
    dir,
    'speech.wav',
    'Marie Curie discovered polonium in Paris. She was a scientist.',
  );
  lecture = await sceneVideo(
    dir,
    'lecture.mp4',
    [
      { text: 'Marie Curie', seconds: 3, background: 'white' },
      { text: 'POLONIUM QUOKKA', seconds: 3, background: 'navy' },
      { text: 'Warsaw', seconds: 2, background: 'darkgreen' },
    ],
    speech,
  );
});

afterAll(async () => {
  await rt?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('media uploads with the embedded defaults (integration)', () => {
  it('indexes a video by its keyframes’ text and speech spans, with graph nodes from what the frames show', async () => {
    const { status, body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'lecture.mp4', content: await bytes(lecture) },
    ]);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'complete',
      video_id: 'lecture.mp4',
      skipped: {
        transcription: expect.stringContaining('TESSERA_TRANSCRIPTION_URL'),
        captioning: expect.stringContaining('TESSERA_CAPTION_URL'),
      },
      files: [{ profile: VIDEO, media: { kind: 'video', transcript_segments: 0 } }],
    });
    // At least one frame a second (fps 1 in the profile) over 8 seconds.
    expect(body.documents_fed).toBeGreaterThanOrEqual(8);
    expect(body.files[0].media.keyframes).toBe(body.documents_fed);
    expect(body.speech_spans.length).toBeGreaterThanOrEqual(1);
    expect(body.graph_nodes).toBeGreaterThanOrEqual(1);
    const node = await call(rt.url, 'GET', '/graph/neighbors?tenant_id=acme&node=Marie%20Curie');
    expect(node.status).toBe(200);
  });

  it('finds the video by a word shown on one of its frames, at that frame’s time', async () => {
    const { status, body } = await search('quokka', VIDEO);
    expect(status).toBe(200);
    const hit = body.results[0];
    expect(hit.source_doc_id).toBe('lecture.mp4');
    expect(hit.fields.ocr_text).toBe('POLONIUM QUOKKA');
    // The word is on screen from 3 s to 6 s; the hit is one of those frames, with its own window.
    expect(hit.fields.ts_start).toBeGreaterThanOrEqual(2.9);
    expect(hit.fields.ts_start).toBeLessThan(6);
    expect(hit.fields.ts_end).toBeGreaterThan(hit.fields.ts_start);
    expect(hit.fields.ts_end).toBeLessThanOrEqual(8.01);
    expect(Number.isInteger(hit.fields.frame_index)).toBe(true);
    // No captioning endpoint: the frame has no caption (a search result leaves out empty fields).
    expect(hit.fields).not.toHaveProperty('caption');
    // The entities of a frame's text are on its document.
    const curie = await search('Marie Curie', VIDEO);
    const frame = curie.body.results.find(
      (r: { fields: { ocr_text: string } }) => r.fields.ocr_text === 'Marie Curie',
    );
    expect(frame.fields.entity_ids).toContain('marie_curie');
  });

  it('indexes an audio file’s speech spans when there is no transcript, and says why', async () => {
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'talk.wav', content: await bytes(speech) },
    ]);
    expect(body).toMatchObject({
      status: 'complete',
      graph_nodes: 0,
      skipped: { transcription: expect.stringContaining('no transcription endpoint') },
      files: [{ profile: 'audio_semantic', media: { kind: 'audio' } }],
    });
    expect(body.skipped.captioning).toBeUndefined();
    expect(body.speech_spans[0].start).toBeLessThan(1);
    expect(body.documents_fed).toBeGreaterThanOrEqual(1);
    const found = await search('talk', 'audio_semantic');
    expect(found.body.results[0]).toMatchObject({
      source_doc_id: 'talk.wav',
      fields: { segment_id: 'speech_0' },
    });
  });

  it('reads an image’s text, and indexes an image with no text with no graph extraction', async () => {
    const sign = await textImage(dir, 'sign.png', ['Geneva Station']);
    const blank = await textImage(dir, 'blank.jpg', []);
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'sign.png', content: await bytes(sign) },
      { name: 'blank.jpg', content: await bytes(blank) },
    ]);
    expect(body).toMatchObject({ status: 'complete', files_failed: 0, documents_fed: 2 });
    expect(body.files[0]).toMatchObject({
      source_doc_id: 'sign.png',
      skipped: { captioning: expect.any(String) },
    });
    expect(body.files[0].graph_nodes).toBeGreaterThanOrEqual(1);
    expect(body.files[1]).toMatchObject({ source_doc_id: 'blank.jpg', status: 'indexed', graph_nodes: 0 });
    const found = await search('Geneva', 'image_colpali_mv');
    expect(found.body.results[0]).toMatchObject({
      source_doc_id: 'sign.png',
      fields: { ocr_text: 'Geneva Station' },
    });
  });

  it('indexes a silent video without text, with content documents and no graph extraction', async () => {
    const silent = await sceneVideo(
      dir,
      'silent.mp4',
      [{ text: '', seconds: 3, background: 'gray' }],
      'silence',
    );
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'silent.mp4', content: await bytes(silent) },
    ]);
    expect(body).toMatchObject({
      status: 'complete',
      graph_nodes: 0,
      graph_edges: 0,
      claims: 'not applicable: no text for the graph pass',
      speech_spans: [],
    });
    expect(body.documents_fed).toBeGreaterThanOrEqual(3);
  });
});

describe('bad media (integration)', () => {
  it('fails a truncated MP4 as CorruptMedia, naming the file', async () => {
    // Cut off as an interrupted recording or upload is: the MP4's index (written last) is missing.
    const cut = path.join(dir, 'cut.mp4');
    await ffmpeg(['-i', lecture, '-c', 'copy', cut]);
    await truncate(cut, Math.floor((await stat(cut)).size * 0.6));
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'cut.mp4', content: await bytes(cut) },
    ]);
    expect(body).toMatchObject({ status: 'failed', error_type: 'CorruptMedia', documents_fed: 0 });
    expect(body.error).toMatch(/^cut\.mp4 /);
    const events = await call(rt.url, 'GET', `/ingestion/${body.job_id}/events`);
    expect(events.body.entries.at(-1)).toMatchObject({ state: 'failed', error_type: 'CorruptMedia' });
  });

  it('refuses a PNG named .mp4 at submit, and fails one whose bytes come later as ContentTypeMismatch', async () => {
    const png = await textImage(dir, 'frame.png', ['NOT A VIDEO']);
    const jobs = async () => (await call(rt.url, 'GET', '/events/queues?tenant_id=acme')).body.count;
    const before = await jobs();
    const refused = await upload(rt.url, { tenant_id: 'acme' }, [
      { name: 'clip.mp4', content: await bytes(png) },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(
      /^clip\.mp4 holds PNG data \(image\/png\), not what its extension \.mp4 says/,
    );
    expect(await jobs()).toBe(before);
    const late = await presigned('late.mp4', png);
    expect(await late.ended()).toMatchObject({ state: 'failed', error_type: 'ContentTypeMismatch' });
  });

  it('fails a 0-second video as CorruptMedia', async () => {
    const empty = path.join(dir, 'zero.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'color=c=white:s=320x240:r=10', '-t', '0', '-c:v', 'libx264', empty]);
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'zero.mp4', content: await bytes(empty) },
    ]);
    expect(body).toMatchObject({ status: 'failed', error_type: 'CorruptMedia', documents_fed: 0 });
    expect(body.error).toContain('zero.mp4');
  });

  it('streams a 2-hour audio file from the blob store with bounded memory', {
    timeout: 240_000,
  }, async () => {
    // 2 hours of quiet noise as a 16 kbit/s MP3, about 14 MB (two ranged reads of the spool); decoded it is
    // 230 MB of 16-bit PCM, which must never sit in the runtime's memory. A minute is encoded, and its MPEG
    // frames (no tag, no Xing header: each frame stands alone) repeated 120 times.
    const minute = path.join(dir, 'minute.mp3');
    await ffmpeg([
      ...['-f', 'lavfi', '-i', 'anoisesrc=r=16000:a=0.0005:c=white', '-t', '60', '-ac', '1', '-b:a', '16k'],
      ...['-write_xing', '0', '-id3v2_version', '0', minute],
    ]);
    const long = path.join(dir, 'two-hours.mp3');
    await writeFile(long, Buffer.concat(Array.from({ length: 120 }, () => readFileSync(minute))));
    expect((await stat(long)).size).toBeGreaterThan(8 * 1024 * 1024);
    // The speech detector and the decoder are loaded first, so that what is measured is the file's cost.
    const warm = await presigned('warm.mp3', minute);
    expect(await warm.ended()).toMatchObject({ state: 'complete' });
    const pid = rt.child.pid!;
    const baseline = rssMiB(pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(pid));
    }, 100);
    try {
      const job = await presigned('two-hours.mp3', long, 200_000);
      const ended = await job.ended();
      expect(ended).toMatchObject({ state: 'complete', result: { files: [{ media: { kind: 'audio' } }] } });
      // 120 copies of a minute's frames: the encoder's padding makes it a few seconds longer.
      expect(ended.result.files[0].media.duration).toBeGreaterThan(7190);
      expect(ended.result.files[0].media.duration).toBeLessThan(7230);
    } finally {
      clearInterval(sampler);
    }
    expect(peak - baseline).toBeLessThan(120);
  });
});
