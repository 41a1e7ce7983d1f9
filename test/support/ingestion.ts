/** Helpers for ingestion tests: uploads as a client sends them, PDFs with and without a text layer. */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { checkAnswer } from './contract';
import { type Answer, call } from './runtime';

export interface UploadFile {
  name: string;
  content: string | Uint8Array;
}

/** `POST /ingestion/upload` with the files and fields as multipart/form-data. */
export async function upload(
  base: string,
  fields: Record<string, string>,
  files: UploadFile[],
  query = '',
): Promise<Answer> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  for (const file of files) form.append('file', new Blob([file.content]), file.name);
  const response = await fetch(`${base}/ingestion/upload${query}`, { method: 'POST', body: form });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  checkAnswer('POST', `/ingestion/upload${query}`, response.status, body);
  return { status: response.status, body, headers: response.headers };
}

/** Polls the job's status until it ended; answers the status body. */
export async function jobEnded(base: string, jobId: string, timeoutMs = 60_000, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await call(base, 'GET', `/ingestion/${jobId}/events`);
    if (status !== 200) throw new Error(`status of ${jobId}: ${status} ${JSON.stringify(body)}`);
    // The job record settles just before its terminal event is appended: wait for both.
    const ended = (state: unknown) => ['complete', 'failed', 'cancelled'].includes(state as string);
    if (ended(body.state) && ended(body.entries?.at(-1)?.state)) return body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${body.state} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A PDF with one line of text a page (or only drawn shapes, no text layer). */
export async function pdfOf(pages: string[], withText = true): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = doc.addPage();
    if (!withText) {
      page.drawRectangle({ x: 50, y: 600, width: 200, height: 100 });
      continue;
    }
    let y = 740;
    for (const line of text.split('\n')) {
      page.drawText(line, { x: 40, y, size: 10, font });
      y -= 14;
    }
  }
  return doc.save();
}

/** The frames of an SSE response until it ends. */
// biome-ignore lint/suspicious/noExplicitAny: frames are JSON whose fields tests assert one by one
export async function sseFrames(url: string, timeoutMs = 30_000): Promise<{ id?: string; data: any }[]> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data: '))
    .map((frame) => ({
      id: /^id: (.*)$/m.exec(frame)?.[1],
      data: JSON.parse(/^data: (.*)$/m.exec(frame)![1]!),
    }));
}
