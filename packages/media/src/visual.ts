/**
 * The visual multi-vector model (ColPali-style, 320 floats a patch) behind a token-embedding pooling runner
 * speaking vLLM's `POST /pooling`: an image goes as a chat message with the image as a data URL, a query as
 * `input` text with `is_query`, as the text late-interaction sidecar takes it. Rows are normalized and packed
 * into sign bits (40 bytes a patch) for the hamming first phase.
 */
import { EncoderResponseError, normalizeRows, packSignBits, postJson } from '@tessera/encoders';
import { z } from 'zod';

export const PATCH_DIM = 320;

export interface PatchVectors {
  /** Rows (patches or query tokens). */
  tokens: number;
  /** tokens × PATCH_DIM floats, each row of unit length. */
  vectors: Float32Array;
  /** tokens × PATCH_DIM / 8 bytes of sign bits. */
  binary: Uint8Array;
}

export interface VisualMultiVectorEncoder {
  readonly name: string;
  encodeImage(image: Uint8Array, mime: string): Promise<PatchVectors>;
  encodeQueries(texts: string[]): Promise<PatchVectors[]>;
}

export interface VisualPoolingOptions {
  /** The runner's base URL, or the full `.../pooling` URL. */
  url: string;
  model: string;
  timeoutMs?: number;
  retries?: number;
}

const answerSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), data: z.array(z.array(z.number())) })),
});

export class VisualPoolingEncoder implements VisualMultiVectorEncoder {
  readonly name: string;
  readonly url: string;

  constructor(private readonly options: VisualPoolingOptions) {
    const base = options.url.replace(/\/+$/, '');
    this.url = base.endsWith('/pooling') ? base : `${base}/pooling`;
    this.name = `visual-pooling:${options.model}`;
  }

  async encodeImage(image: Uint8Array, mime: string): Promise<PatchVectors> {
    const url = `data:${mime};base64,${Buffer.from(image).toString('base64')}`;
    const [rows] = await this.request(
      {
        model: this.options.model,
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
      },
      1,
    );
    return this.toVectors(rows!);
  }

  async encodeQueries(texts: string[]): Promise<PatchVectors[]> {
    if (texts.length === 0) return [];
    const rows = await this.request(
      { model: this.options.model, input: texts, is_query: true },
      texts.length,
    );
    return rows.map((r) => this.toVectors(r));
  }

  private async request(body: unknown, expected: number): Promise<number[][][]> {
    const answer = await postJson({
      service: 'visual_pooling',
      url: this.url,
      body,
      timeoutMs: this.options.timeoutMs ?? 120_000,
      retries: this.options.retries ?? 2,
    });
    const parsed = answerSchema.safeParse(answer);
    if (!parsed.success) throw this.outOfContract('expected {data: [{index, data: number[][]}]}');
    if (parsed.data.data.length !== expected) {
      throw this.outOfContract(`sent ${expected} inputs, got ${parsed.data.data.length} results`);
    }
    const rows = new Array<number[][]>(expected);
    for (const entry of parsed.data.data) {
      if (entry.index >= expected || rows[entry.index]) {
        throw this.outOfContract(`result index ${entry.index} is out of range or repeated`);
      }
      rows[entry.index] = entry.data;
    }
    return rows;
  }

  private toVectors(rows: number[][]): PatchVectors {
    if (rows.length === 0) throw this.outOfContract('an input got no vectors');
    const vectors = new Float32Array(rows.length * PATCH_DIM);
    rows.forEach((row, r) => {
      if (row.length !== PATCH_DIM) {
        throw this.outOfContract(
          `patch vectors must have ${PATCH_DIM} dimensions, row ${r} has ${row.length}`,
        );
      }
      vectors.set(row, r * PATCH_DIM);
    });
    normalizeRows(vectors, PATCH_DIM);
    return { tokens: rows.length, vectors, binary: packSignBits(vectors, PATCH_DIM) };
  }

  private outOfContract(problem: string): EncoderResponseError {
    return new EncoderResponseError('visual_pooling', this.url, problem);
  }
}
