/**
 * Scanned PDFs (no text layer): each page rendered by pdf.js (through `unpdf`) onto a `@napi-rs/canvas`
 * (Skia, prebuilt for each platform in the npm registry) and read by OCR, one page in memory at a time.
 */
import { CorruptMediaError } from './errors';
import type { OcrEngine } from './ocr';

/** Render scale: 2 makes an A4 page about 1190 × 1684 pixels, about 144 dpi, which Tesseract reads well. */
export const PDF_RENDER_SCALE = 2;

export interface PdfOcrOptions {
  ocr: OcrEngine;
  scale?: number;
  /** Pages read at most (the rest are left out). Default 500. */
  maxPages?: number;
  name?: string;
  signal?: AbortSignal;
}

/** The OCR text of each page of a PDF, in page order. */
export async function ocrPdfPages(bytes: Uint8Array, options: PdfOcrOptions): Promise<string[]> {
  const { getDocumentProxy, renderPageAsImage } = await import('unpdf');
  const name = options.name ?? 'the PDF';
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (error) {
    throw new CorruptMediaError(`${name} could not be read as a PDF: ${(error as Error).message}`, error);
  }
  try {
    const pages: string[] = [];
    const count = Math.min(pdf.numPages, options.maxPages ?? 500);
    for (let page = 1; page <= count; page++) {
      options.signal?.throwIfAborted();
      const png = await renderPageAsImage(pdf, page, {
        canvasImport: () => import('@napi-rs/canvas'),
        scale: options.scale ?? PDF_RENDER_SCALE,
      });
      pages.push((await options.ocr.recognize(Buffer.from(png))).text);
    }
    return pages;
  } finally {
    await pdf.destroy();
  }
}
