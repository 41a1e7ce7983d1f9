import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobEnded, pdfOf, sseFrames, upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

const root = path.resolve(import.meta.dirname, '..');
let rt: RuntimeProcess;

const CURIE = [
  '# Marie Curie',
  'Marie Curie was a physicist and chemist who conducted pioneering research on radioactivity.',
  'She was born in Warsaw and later worked in Paris at the University of Paris.',
  'Together with Pierre Curie she discovered polonium and radium, and she won the Nobel Prize twice.',
].join('\n\n');

const search = async (tenant: string, query: string, profile = 'document_text_semantic', strategy?: string) =>
  call(rt.url, 'POST', '/search/', {
    query,
    tenant_id: tenant,
    profile,
    top_k: 10,
    ...(strategy ? { strategy } : {}),
  });

const documentCount = async (tenant: string, profile: string) => {
  const { body } = await call(rt.url, 'GET', `/search/profiles?tenant_id=${tenant}`);
  return body.profiles.find((p: { profile_name: string }) => p.profile_name === profile)
    .document_count as number;
};

beforeAll(async () => {
  rt = await spawnRuntime({ env: { TESSERA_UPLOAD_MAX_BYTES: String(3 * 1024 * 1024) } });
  for (const tenant of ['acme', 'rival']) {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: tenant })).status).toBe(201);
  }
});

afterAll(async () => {
  await rt?.stop();
});

describe('POST /ingestion/upload (integration)', () => {
  it('indexes a Markdown file and answers the upload response when asked to wait', async () => {
    const { status, body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'curie.md', content: CURIE },
    ]);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'complete',
      video_id: 'curie.md',
      // Paragraphs join into chunks of at most 2,000 characters: this short file is one chunk.
      chunks_created: 1,
      documents_fed: 1,
      files_skipped: 0,
    });
    expect(body.processing_time).toBeGreaterThan(0);
    expect(body.job_id).toMatch(/^ingest_[0-9a-f]{16}$/);
    // The embedded entity extractor finds the people and places; claims need an LLM endpoint.
    expect(body.graph_nodes).toBeGreaterThan(0);
    expect(body.graph_edges).toBe(0);
    expect(body.claims).toMatch(/skipped/);

    const found = await search('acme', 'polonium radium discovered');
    expect(found.status).toBe(200);
    expect(found.body.results[0].source_doc_id).toBe('curie.md');
    expect(found.body.results[0].text).toContain('polonium');
    // Each chunk carries the ids of the graph nodes found in it.
    const chunk = found.body.results[0].fields;
    expect(chunk.entity_ids).toEqual(expect.arrayContaining(['pierre_curie']));

    const nodes = await call(rt.url, 'GET', '/graph/search?tenant_id=acme&q=Marie%20Curie');
    expect(nodes.body.nodes.map((n: { node_id: string }) => n.node_id)).toContain('marie_curie');
    const marie = nodes.body.nodes.find((n: { node_id: string }) => n.node_id === 'marie_curie');
    expect(marie.kind).toBe('concept');
    expect(marie.label).toBe('Person');
  });

  it('sets the graph ids on the chunks of every file of a several-file upload', async () => {
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'lovelace.md', content: 'Ada Lovelace wrote the first program for the Analytical Engine.' },
      { name: 'turing.md', content: 'Alan Turing studied computable numbers at Cambridge.' },
    ]);
    expect(body).toMatchObject({ status: 'complete', documents_fed: 2 });
    const ids = async (query: string, source: string) => {
      const found = await search('acme', query);
      return found.body.results.find((r: { source_doc_id: string }) => r.source_doc_id === source).fields
        .entity_ids as string[];
    };
    expect(await ids('first program Analytical Engine', 'lovelace.md')).toContain('ada_lovelace');
    expect(await ids('computable numbers Cambridge', 'turing.md')).toContain('alan_turing');
  });

  it('reports the job as status entries and as task events whose replay is identical', async () => {
    const { status, body } = await upload(rt.url, { tenant_id: 'acme' }, [
      { name: 'notes/radium.txt', content: 'Radium glows faintly in the dark.\n\nIt was isolated in 1902.' },
    ]);
    expect(status).toBe(202);
    expect(body).toMatchObject({
      status: 'queued',
      tenant_id: 'acme:acme',
      files: [{ name: 'notes/radium.txt', profile: 'document_text_semantic' }],
      events_url: `/events/ingestion/${body.job_id}`,
    });
    const job = await jobEnded(rt.url, body.job_id);
    expect(job.state).toBe('complete');
    expect(job.entries.map((e: { state: string }) => e.state)).toEqual([
      'queued',
      'running',
      'running',
      'complete',
    ]);
    expect(job.entries[2].event).toMatchObject({
      type: 'progress',
      current: 1,
      total: 1,
      step: 'notes/radium.txt',
    });
    expect(job.result).toMatchObject({ status: 'complete', chunks_created: 1 });

    const url = `${rt.url}/events/ingestion/${body.job_id}`;
    const frames = await sseFrames(url);
    expect(frames.map((f) => f.data.type)).toEqual([
      'connected',
      'status',
      'status',
      'progress',
      'complete',
      'end',
    ]);
    expect(frames[1]!.data).toMatchObject({ state: 'pending', task_id: body.job_id, tenant_id: 'acme:acme' });
    expect(frames[2]!.data).toMatchObject({ state: 'working', phase: 'running' });
    expect(frames[4]!.data.result).toMatchObject({ status: 'complete', documents_fed: 1 });
    const again = await sseFrames(url);
    expect(again.slice(1)).toEqual(frames.slice(1));
  });

  it('skips a re-upload of identical content and never duplicates documents', async () => {
    const file = { name: 'again.md', content: 'A paragraph about the Curie family archive in Warsaw.' };
    const first = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [file]);
    expect(first.body).toMatchObject({ status: 'complete', documents_fed: 1, files_skipped: 0 });
    const before = await documentCount('acme', 'document_text_semantic');
    const second = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [file]);
    expect(second.body).toMatchObject({ status: 'complete', documents_fed: 0, files_skipped: 1 });
    expect(second.body.files[0].status).toBe('skipped');
    expect(await documentCount('acme', 'document_text_semantic')).toBe(before);
    // Changed content under the same name replaces the source's documents.
    const changed = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'again.md', content: 'First new paragraph.\n\nSecond new paragraph, with zebras.' },
    ]);
    expect(changed.body).toMatchObject({ status: 'complete', documents_fed: 1 });
    expect(await documentCount('acme', 'document_text_semantic')).toBe(before);
    const zebras = await search('acme', 'zebras');
    expect(
      zebras.body.results.filter((r: { source_doc_id: string }) => r.source_doc_id === 'again.md'),
    ).toHaveLength(1);
  });

  it('indexes a PDF through its text layer and HTML without its scripts', async () => {
    const pages = Array.from(
      { length: 5 },
      (_, i) => `Page ${i + 1}: the spectrometer calibration step ${i + 1}.`,
    );
    const pdf = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'manual.pdf', content: await pdfOf(pages) },
    ]);
    expect(pdf.status).toBe(200);
    expect(pdf.body).toMatchObject({ status: 'complete', chunks_created: 1 });
    const hit = await search('acme', 'spectrometer calibration');
    expect(hit.body.results[0].source_doc_id).toBe('manual.pdf');
    expect(hit.body.results[0].text).toContain('Page 3');

    const html = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      {
        name: 'page.html',
        content:
          '<html><head><script>var trackingpixel = "zqxjv";</script></head><body><h1>Glassware</h1><p>Beakers and flasks.</p></body></html>',
      },
    ]);
    expect(html.body).toMatchObject({ status: 'complete', documents_fed: 1 });
    expect((await search('acme', 'beakers flasks')).body.results[0].source_doc_id).toBe('page.html');
    // A vector first phase answers every document, so none of them may hold the script's words.
    const script = await search(
      'acme',
      'zqxjv trackingpixel',
      'document_text_semantic',
      'hybrid_binary_bm25',
    );
    const texts = script.body.results.map((r: { fields: { text: string } }) => r.fields.text).join('\n');
    expect(texts).toContain('Beakers and flasks.');
    expect(texts).not.toMatch(/zqxjv|trackingpixel/);
  });

  it('indexes a code file into the code profile along its definitions', async () => {
    const source = readFileSync(path.join(root, 'packages/ingestion/src/keys.ts'), 'utf8');
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'src/keys.ts', content: source },
    ]);
    expect(body).toMatchObject({
      status: 'complete',
      files: [{ profile: 'code_lateon_mv', status: 'indexed' }],
    });
    expect(body.chunks_created).toBeGreaterThan(1);
    const hit = await search('acme', 'cleanName forward slashes segments', 'code_lateon_mv');
    expect(hit.body.results[0]).toMatchObject({ source_doc_id: 'src/keys.ts' });
    expect(hit.body.results[0].fields).toMatchObject({
      symbol: 'cleanName',
      kind: 'function',
      language: 'typescript',
    });
  });

  it.each([
    ['a corrupt PDF', 'broken.pdf', `%PDF-1.7\n${'garbage '.repeat(50)}`, 'CorruptPdf'],
    [
      'a Markdown name over binary content',
      'photo.md',
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0xff, 0xfe]),
      'ContentTypeMismatch',
    ],
    ['a file of blank lines', 'blank.txt', '\n\n   \n\n', 'EmptyDocument'],
    // Media whose container cannot be decoded: eight bytes of an MP4 header, a PNG signature, a RIFF tag.
    ['a video', 'clip.mp4', new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70]), 'CorruptMedia'],
    ['an image', 'photo.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47]), 'CorruptMedia'],
    ['an audio file', 'talk.wav', new Uint8Array([0x52, 0x49, 0x46, 0x46]), 'CorruptMedia'],
  ])('ends %s failed with a reason and stores no documents for it', async (_, name, content, errorType) => {
    const { status, body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [{ name, content }]);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'failed', error_type: errorType, documents_fed: 0 });
    expect(body.error).toContain(name);
    const events = await call(rt.url, 'GET', `/ingestion/${body.job_id}/events`);
    expect(events.body.entries.at(-1)).toMatchObject({ state: 'failed', error_type: errorType });
  });

  it('reports a failed file of a run of several as a recoverable error, and goes on with the others', async () => {
    const { status, body } = await upload(rt.url, { tenant_id: 'acme' }, [
      { name: 'first-of-three.md', content: 'Ada Lovelace wrote notes on the Analytical Engine.' },
      { name: 'middle.mp4', content: new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70]) },
      { name: 'last-of-three.md', content: 'Charles Babbage designed the Difference Engine.' },
    ]);
    expect(status).toBe(202);
    const job = await jobEnded(rt.url, body.job_id);
    expect(job.result).toMatchObject({ status: 'complete', files_failed: 1, documents_fed: 2 });
    const errors = job.entries.filter((entry: { event?: { type: string } }) => entry.event?.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      state: 'running',
      event: { error_type: 'ContentProcessingError', recoverable: true },
    });
    expect(errors[0].event.error_message).toMatch(/^middle\.mp4 cannot be decoded: /);
  });

  it('reads a PDF without a text layer by OCR, and says so when its pages hold no text either', async () => {
    const { body } = await upload(rt.url, { tenant_id: 'acme', wait: 'true' }, [
      { name: 'scan.pdf', content: await pdfOf(['', ''], false) },
    ]);
    expect(body).toMatchObject({ status: 'failed', error_type: 'EmptyDocument' });
    expect(body.error).toBe('scan.pdf has no text layer, and OCR found no text on its 2 pages');
  });

  it('keeps tenants apart: another tenant never finds an upload', async () => {
    await upload(rt.url, { tenant_id: 'rival', wait: 'true' }, [
      { name: 'secret.md', content: 'The rival lab stores its samples in the quokka freezer.' },
    ]);
    expect((await search('rival', 'quokka freezer')).body.results[0].source_doc_id).toBe('secret.md');
    const acme = await search('acme', 'quokka freezer');
    expect(acme.body.results.map((r: { source_doc_id: string }) => r.source_doc_id)).not.toContain(
      'secret.md',
    );
  });
});

describe('POST /ingestion/upload bad input (integration)', () => {
  const jobsBefore = async () => (await call(rt.url, 'GET', '/events/queues?tenant_id=acme')).body.count;

  it.each([
    [
      'an unregistered tenant',
      { tenant_id: 'ghost' },
      [{ name: 'a.md', content: 'x' }],
      404,
      "Tenant 'ghost:ghost' not registered.",
    ],
    ['a malformed tenant', { tenant_id: 'a:b:c' }, [{ name: 'a.md', content: 'x' }], 400, 'single colon'],
    [
      'an empty file',
      { tenant_id: 'acme' },
      [{ name: 'empty.md', content: '' }],
      400,
      "File 'empty.md' is empty",
    ],
    [
      'an unknown profile',
      { tenant_id: 'acme', profile: 'nope' },
      [{ name: 'a.md', content: 'x' }],
      400,
      "Unknown profile 'nope'",
    ],
    [
      'a profile that does not take the file',
      { tenant_id: 'acme', profile: 'code_lateon_mv' },
      [{ name: 'a.md', content: 'x' }],
      400,
      "cannot ingest '.md'",
    ],
    [
      'an extension no profile takes',
      { tenant_id: 'acme' },
      [{ name: 'data.xlsx', content: 'x' }],
      400,
      "No profile ingests '.xlsx'",
    ],
    [
      'a file over the upload cap',
      { tenant_id: 'acme' },
      [{ name: 'big.txt', content: 'a'.repeat(3 * 1024 * 1024 + 1) }],
      413,
      'over the upload limit',
    ],
  ])('refuses %s and stores nothing', async (_, fields, files, status, message) => {
    const before = await jobsBefore();
    const answer = await upload(rt.url, fields, files);
    expect(answer.status).toBe(status);
    expect(JSON.stringify(answer.body.detail)).toContain(message);
    expect(await jobsBefore()).toBe(before);
  });

  it('answers 422 without tenant_id or file, and 415 for a body that is not a form', async () => {
    const before = await jobsBefore();
    const missing = await upload(rt.url, {}, [{ name: 'a.md', content: 'x' }]);
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'tenant_id'] });
    const noFile = await upload(rt.url, { tenant_id: 'acme' }, []);
    expect(noFile.status).toBe(422);
    expect(noFile.body.detail).toEqual([
      { type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null },
    ]);
    expect(await jobsBefore()).toBe(before);
    const json = await call(rt.url, 'POST', '/ingestion/upload', { tenant_id: 'acme' });
    expect(json.status).toBe(415);
  });

  it('answers 404 for the status of an unknown job', async () => {
    const { status, body } = await call(rt.url, 'GET', '/ingestion/ingest_0000000000000000/events');
    expect(status).toBe(404);
    expect(body.detail).toBe('No ingestion job found with ID ingest_0000000000000000');
  });
});

describe('presigned uploads and runs over the bucket (integration)', () => {
  it('starts the job when the presigned PUT lands', async () => {
    const content = 'Presigned uploads carry the wombat protocol notes.';
    const { status, body } = await call(rt.url, 'POST', '/ingestion/uploads', {
      tenant_id: 'acme',
      filename: 'presigned.md',
      size: Buffer.byteLength(content),
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ status: 'queued', upload: { method: 'PUT' } });
    const put = await fetch(body.upload.url, { method: 'PUT', body: content, headers: body.upload.headers });
    expect(put.status).toBe(200);
    const job = await jobEnded(rt.url, body.job_id);
    expect(job).toMatchObject({ state: 'complete', result: { documents_fed: 1, video_id: 'presigned.md' } });
    expect((await search('acme', 'wombat protocol')).body.results[0].source_doc_id).toBe('presigned.md');
  });

  it('settles a presigned job cancelled before its file came, without waiting for the file', async () => {
    const { body } = await call(rt.url, 'POST', '/ingestion/uploads', {
      tenant_id: 'acme',
      filename: 'never-sent.md',
      size: 10,
    });
    const cancel = await call(rt.url, 'POST', `/events/ingestion/${body.job_id}/cancel`, {
      reason: 'changed my mind',
    });
    expect(cancel.status).toBe(200);
    const job = await jobEnded(rt.url, body.job_id, 10_000);
    expect(job).toMatchObject({ state: 'cancelled', reason: 'changed my mind' });
    expect(job.entries.at(-1)).toMatchObject({ state: 'cancelled', reason: 'changed my mind' });
    // Its upload URL no longer starts anything.
    const put = await fetch(body.upload.url, {
      method: 'PUT',
      body: 'late bytes',
      headers: body.upload.headers,
    });
    expect(put.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await call(rt.url, 'GET', `/ingestion/${body.job_id}/events`)).body.state).toBe('cancelled');
  });

  it('refuses a presign over the cap or for an unregistered tenant', async () => {
    const big = await call(rt.url, 'POST', '/ingestion/uploads', {
      tenant_id: 'acme',
      filename: 'a.md',
      size: 4 * 1024 ** 2,
    });
    expect(big.status).toBe(413);
    const ghost = await call(rt.url, 'POST', '/ingestion/uploads', {
      tenant_id: 'ghost',
      filename: 'a.md',
      size: 3,
    });
    expect(ghost.status).toBe(404);
  });

  it('runs over the objects a tenant placed under its prefix', async () => {
    const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
    const s3 = new S3Client({
      endpoint: rt.emulatorUrl,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    for (const [name, text] of [
      ['batch/one.md', 'The first batch file mentions narwhals.'],
      ['batch/two.md', 'The second batch file mentions axolotls.'],
    ]) {
      await s3.send(
        new PutObjectCommand({
          Bucket: `tessera-${rt.stage}-uploads`,
          Key: `tenants/acme:acme/${name}`,
          Body: text,
        }),
      );
    }
    const { status, body } = await call(rt.url, 'POST', '/ingestion/start', {
      tenant_id: 'acme',
      prefix: 'batch/',
    });
    expect(status).toBe(202);
    expect(body.files.map((f: { name: string }) => f.name)).toEqual(['batch/one.md', 'batch/two.md']);
    const job = await jobEnded(rt.url, body.job_id);
    expect(job.result).toMatchObject({ status: 'complete', documents_fed: 2 });
    expect((await search('acme', 'axolotls')).body.results[0].source_doc_id).toBe('batch/two.md');
    const none = await call(rt.url, 'POST', '/ingestion/start', {
      tenant_id: 'acme',
      prefix: 'nothing-here/',
    });
    expect(none.status).toBe(400);
  });
});
