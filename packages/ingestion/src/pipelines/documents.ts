/** Text documents: Markdown, text, reStructuredText, HTML reduced to text, and PDF through its text layer. */
import { chunkText } from '@tessera/extractors';
import { convert } from 'html-to-text';
import { extractText, getDocumentProxy } from 'unpdf';
import { ContentError } from '../errors';
import { mediaToolsFor } from './media';
import type { BytesPipeline, MediaReport, PipelineContext, PipelineOutput } from './types';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Bytes as UTF-8 text; a file that is not text (a binary under a text extension) is refused. */
export function decodeText(bytes: Uint8Array, name: string): string {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new ContentError('ContentTypeMismatch', `${name} is not UTF-8 text, so it is not a text document`);
  }
  if (text.includes('\u0000')) {
    throw new ContentError('ContentTypeMismatch', `${name} holds binary data, so it is not a text document`);
  }
  return text.replace(/^\uFEFF/, '');
}

/** Visible text of an HTML page: scripts, styles and markup dropped, paragraphs kept as blank-line breaks. */
export function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'noscript', format: 'skip' },
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
      { selector: 'h4', options: { uppercase: false } },
      { selector: 'h5', options: { uppercase: false } },
      { selector: 'h6', options: { uppercase: false } },
      { selector: 'table', format: 'dataTable' },
    ],
  });
}

/** The text layer of a PDF, one string a page. */
export async function pdfPages(bytes: Uint8Array, name: string): Promise<string[]> {
  if (!Buffer.from(bytes.subarray(0, 1024)).toString('latin1').includes('%PDF-')) {
    throw new ContentError('CorruptPdf', `${name} is not a PDF file (no %PDF- header)`);
  }
  let pages: string[];
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    pages = (await extractText(pdf, { mergePages: false })).text;
    await pdf.destroy();
  } catch (error) {
    throw new ContentError('CorruptPdf', `${name} could not be read as a PDF: ${(error as Error).message}`);
  }
  if (pages.every((page) => page.trim() === '')) {
    throw new ContentError('NoTextLayer', `${name} has no text layer (a scanned PDF?)`);
  }
  return pages;
}

/**
 * A scanned PDF's pages read by OCR (each rendered onto a canvas, one page in memory at a time), for a PDF
 * whose text layer is empty.
 */
export async function ocrPages(
  context: PipelineContext,
  bytes: Uint8Array,
): Promise<{ pages: string[]; report: MediaReport }> {
  const tools = await mediaToolsFor(context, 'it has no text layer, and reading its pages needs OCR');
  const { ocr } = await tools.embeddedToolkit();
  try {
    const pages = await tools.ocrPdfPages(bytes, { ocr, name: context.name, signal: context.signal });
    return {
      pages,
      report: { media: { kind: 'pdf', ocr_pages: pages.length, models: { ocr: ocr.name } } },
    };
  } catch (error) {
    if (error instanceof tools.MediaContentError) throw new ContentError('CorruptPdf', error.message);
    throw error;
  }
}

function titleOf(text: string, name: string): string {
  const heading = /^\s*#{1,6}\s+(.+?)\s*#*\s*$/m.exec(text)?.[1];
  if (heading) return heading.slice(0, 300);
  const first = text.split('\n').find((line) => line.trim() !== '');
  return (first?.trim() || name).slice(0, 300);
}

async function documentText(
  context: PipelineContext,
  bytes: Uint8Array,
): Promise<{ text: string; report?: MediaReport }> {
  const { name, extension } = context;
  if (extension === '.pdf') {
    try {
      return { text: (await pdfPages(bytes, name)).join('\n\n') };
    } catch (error) {
      if (!(error instanceof ContentError && error.errorType === 'NoTextLayer')) throw error;
      const { pages, report } = await ocrPages(context, bytes);
      return { text: pages.join('\n\n'), report };
    }
  }
  const text = decodeText(bytes, name);
  return { text: extension === '.html' || extension === '.htm' ? htmlToText(text) : text };
}

export const documentPipeline: BytesPipeline = {
  kind: 'document',
  reads: 'bytes',
  async run(input): Promise<PipelineOutput> {
    const { bytes, name, extension } = input;
    const { text, report } = await documentText(input, bytes);
    const chunks = chunkText(text);
    if (chunks.length === 0) {
      throw new ContentError(
        'EmptyDocument',
        report
          ? `${name} has no text layer, and OCR found no text on its ${report.media?.ocr_pages} pages`
          : `${name} holds no text to index`,
      );
    }
    const title = titleOf(text, name);
    return {
      documents: chunks.map((chunk, index) => ({
        fields: { title, text: chunk, chunk_index: index, metadata: JSON.stringify({ extension }) },
      })),
      segments: chunks.map((chunk, index) => ({
        segment_id: `chunk_${index}`,
        text: chunk,
        ts_start: 0,
        ts_end: 0,
        modality: 'text',
      })),
      ...(report && { report }),
    };
  },
};
