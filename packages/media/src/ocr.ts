/**
 * Text in images by OCR: tesseract.js 7 (Tesseract's LSTM engine compiled to WebAssembly) with the English
 * model `@tesseract.js-data/eng` ships (tessdata_best, integer-quantised), read from node_modules: nothing is
 * downloaded. One worker thread is started on first use and reused; words under a confidence floor are dropped,
 * since Tesseract reads texture and edges as short garbage words with low confidence.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Worker } from 'tesseract.js';
import { MediaToolError } from './errors';
import type { OcrWord } from './types';

export interface OcrResult {
  /** Kept words, a line a line, blocks separated by a blank line. */
  text: string;
  /** Each text block's kept words (the graph pass takes each as one OCR segment). */
  blocks: string[];
  words: OcrWord[];
}

export interface OcrEngine {
  readonly name: string;
  /** Text of a PNG, JPEG, BMP or WebP image (bytes or a file path). */
  recognize(image: Buffer | string): Promise<OcrResult>;
  /** Ends the worker; a later call starts a new one. */
  close(): Promise<void>;
}

/** Words Tesseract is less sure of than this (0–100) are dropped. */
export const DEFAULT_MIN_CONFIDENCE = 60;

const require = createRequire(import.meta.url);

/** The directory of `@tesseract.js-data/eng`'s integer-quantised best model. */
export function englishModelDir(): string {
  return path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

interface TesseractBlock {
  paragraphs: { lines: { words: { text: string; confidence: number; bbox: OcrWord['bbox'] }[] }[] }[];
}

/** Kept words of Tesseract's block tree, as blocks of lines. Pure: the unit tests give it hand-made trees. */
export function keptText(blocks: TesseractBlock[] | null, minConfidence: number): OcrResult {
  const words: OcrWord[] = [];
  const texts: string[] = [];
  for (const block of blocks ?? []) {
    const lines: string[] = [];
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const kept = line.words.filter((w) => w.confidence >= minConfidence && w.text.trim() !== '');
        words.push(...kept.map((w) => ({ text: w.text, confidence: w.confidence, bbox: w.bbox })));
        if (kept.length) lines.push(kept.map((w) => w.text).join(' '));
      }
    }
    if (lines.length) texts.push(lines.join('\n'));
  }
  return { text: texts.join('\n\n'), blocks: texts, words };
}

export class TesseractOcr implements OcrEngine {
  readonly name = 'embedded:tesseract.js@7 (eng tessdata_best int)';
  private worker: Promise<Worker> | undefined;

  constructor(private readonly minConfidence = DEFAULT_MIN_CONFIDENCE) {}

  async recognize(image: Buffer | string): Promise<OcrResult> {
    const worker = await this.start();
    const { data } = await worker.recognize(image, {}, { text: false, blocks: true });
    return keptText(data.blocks as TesseractBlock[] | null, this.minConfidence);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await (await worker).terminate();
  }

  private start(): Promise<Worker> {
    this.worker ??= (async () => {
      try {
        const { createWorker, OEM } = await import('tesseract.js');
        return await createWorker('eng', OEM.LSTM_ONLY, {
          langPath: englishModelDir(),
          gzip: true,
          // The model is read from node_modules; no cache copy is written to the working directory.
          cacheMethod: 'none',
        });
      } catch (error) {
        this.worker = undefined;
        throw new MediaToolError(`OCR could not start: ${(error as Error).message}`, error);
      }
    })();
    return this.worker;
  }
}
