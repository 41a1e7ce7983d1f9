/** Multi-vector adapter for a late-interaction sidecar speaking the vLLM `/pooling` contract. */
import { z } from 'zod';
import { normalizeRows, packSignBits } from './binary';
import { EncoderResponseError } from './errors';
import { postJson } from './http';
import { type EncodeMode, type MultiVector, type MultiVectorEncoder, TOKEN_DIM } from './types';

export interface PoolingEncoderOptions {
  /** Server base URL, or the full `.../pooling` URL. */
  url: string;
  model: string;
  timeoutMs?: number;
  retries?: number;
  /** Texts per request. Default 32. */
  batchSize?: number;
  /** First retry delay, doubled at each retry. Default 100 ms. */
  retryDelayMs?: number;
}

const poolingResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), data: z.array(z.array(z.number())) })),
});

/**
 * Sends raw text plus `is_query`; the sidecar applies the model's query expansion and document markers.
 * Blank texts are not sent and yield 0 tokens, as with the embedded encoder.
 */
export class PoolingEncoder implements MultiVectorEncoder {
  readonly name: string;
  /** The model's name is all a client knows of the weights behind it. */
  readonly fingerprint: string;
  readonly url: string;
  readonly model: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly batchSize: number;
  private readonly retryDelayMs: number | undefined;

  constructor(options: PoolingEncoderOptions) {
    const base = options.url.replace(/\/+$/, '');
    this.url = base.endsWith('/pooling') ? base : `${base}/pooling`;
    this.model = options.model;
    this.name = `pooling:${options.model}`;
    this.fingerprint = this.name;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 2;
    this.batchSize = options.batchSize ?? 32;
    this.retryDelayMs = options.retryDelayMs;
  }

  async encode(texts: string[], mode: EncodeMode): Promise<MultiVector[]> {
    const results: MultiVector[] = texts.map(() => ({
      tokens: 0,
      vectors: new Float32Array(0),
      binary: new Uint8Array(0),
    }));
    const pending = texts.flatMap((text, index) => (text.trim() ? [index] : []));
    for (let start = 0; start < pending.length; start += this.batchSize) {
      const batch = pending.slice(start, start + this.batchSize);
      const answers = await this.request(
        batch.map((index) => texts[index]!),
        mode,
      );
      batch.forEach((index, i) => {
        results[index] = answers[i]!;
      });
    }
    return results;
  }

  private async request(input: string[], mode: EncodeMode): Promise<MultiVector[]> {
    const answer = await postJson({
      service: 'pooling',
      url: this.url,
      body: { input, model: this.model, is_query: mode === 'query' },
      timeoutMs: this.timeoutMs,
      retries: this.retries,
      retryDelayMs: this.retryDelayMs,
    });
    const parsed = poolingResponseSchema.safeParse(answer);
    if (!parsed.success) {
      throw this.outOfContract(
        `expected {data: [{index, data: number[][]}]}: ${parsed.error.issues[0]?.message}`,
      );
    }
    const entries = parsed.data.data;
    if (entries.length !== input.length) {
      throw this.outOfContract(`sent ${input.length} inputs, got ${entries.length} results`);
    }
    const byIndex = new Array<number[][] | undefined>(input.length);
    for (const entry of entries) {
      if (entry.index >= input.length || byIndex[entry.index]) {
        throw this.outOfContract(`result index ${entry.index} is out of range or repeated`);
      }
      byIndex[entry.index] = entry.data;
    }
    return byIndex.map((rows, i) => this.toMultiVector(rows!, i));
  }

  private toMultiVector(rows: number[][], input: number): MultiVector {
    const vectors = new Float32Array(rows.length * TOKEN_DIM);
    rows.forEach((row, r) => {
      if (row.length !== TOKEN_DIM) {
        throw this.outOfContract(
          `token vectors must have ${TOKEN_DIM} dimensions, input ${input} token ${r} has ${row.length}`,
        );
      }
      vectors.set(row, r * TOKEN_DIM);
    });
    normalizeRows(vectors, TOKEN_DIM);
    return { tokens: rows.length, vectors, binary: packSignBits(vectors, TOKEN_DIM) };
  }

  private outOfContract(problem: string): EncoderResponseError {
    return new EncoderResponseError('pooling', this.url, problem);
  }
}
