/** Text documents: Markdown, text, reStructuredText, HTML reduced to text, and PDF through its text layer. */
import { chunkText } from '@tessera/extractors';
import { convert } from 'html-to-text';
import { extractText, getDocumentProxy } from 'unpdf';
import { ContentError } from '../errors';
import type { Pipeline, PipelineOutput } from './types';

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
    throw new ContentError(
      'NoTextLayer',
      `${name} has no text layer (a scanned PDF?); text recognition of page images is not available`,
    );
  }
  return pages;
}

function titleOf(text: string, name: string): string {
  const heading = /^\s*#{1,6}\s+(.+?)\s*#*\s*$/m.exec(text)?.[1];
  if (heading) return heading.slice(0, 300);
  const first = text.split('\n').find((line) => line.trim() !== '');
  return (first?.trim() || name).slice(0, 300);
}

async function documentText(bytes: Uint8Array, name: string, extension: string): Promise<string> {
  if (extension === '.pdf') return (await pdfPages(bytes, name)).join('\n\n');
  const text = decodeText(bytes, name);
  return extension === '.html' || extension === '.htm' ? htmlToText(text) : text;
}

export const documentPipeline: Pipeline = {
  kind: 'document',
  async run({ bytes, name, extension }): Promise<PipelineOutput> {
    const text = await documentText(bytes, name, extension);
    const chunks = chunkText(text);
    if (chunks.length === 0) {
      throw new ContentError('EmptyDocument', `${name} holds no text to index`);
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
    };
  },
};
