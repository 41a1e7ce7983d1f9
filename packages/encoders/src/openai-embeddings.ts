/** Dense adapter for an OpenAI-compatible `/v1/embeddings` server. */
import { z } from 'zod';
import { normalizeRows } from './binary';
import { EncoderResponseError } from './errors';
import { postJson } from './http';
import type { DenseEncoder, EncodeMode } from './types';

export interface OpenAIEmbeddingsEncoderOptions {
  /** Server base URL (`http://host:8000`, `.../v1`), or the full `.../embeddings` URL. */
  url: string;
  model: string;
  apiKey?: string;
  /** Dimension the server must answer with. Default 768. */
  dim?: number;
  timeoutMs?: number;
  retries?: number;
  /** Texts per request. Default 32. */
  batchSize?: number;
  /** Prepended to each query / document, for models trained with task prefixes ("search_query: "). Default none. */
  queryPrefix?: string;
  documentPrefix?: string;
  /** First retry delay, doubled at each retry. Default 100 ms. */
  retryDelayMs?: number;
}

const embeddingsResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) })),
});

/** Blank texts are not sent (OpenAI rejects them) and yield the zero vector, as with the embedded encoder. */
export class OpenAIEmbeddingsEncoder implements DenseEncoder {
  readonly name: string;
  readonly dim: number;
  readonly url: string;
  readonly model: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly batchSize: number;
  private readonly prefixes: Record<EncodeMode, string>;
  private readonly retryDelayMs: number | undefined;

  constructor(options: OpenAIEmbeddingsEncoderOptions) {
    const base = options.url.replace(/\/+$/, '');
    this.url = base.endsWith('/embeddings')
      ? base
      : base.endsWith('/v1')
        ? `${base}/embeddings`
        : `${base}/v1/embeddings`;
    this.model = options.model;
    this.name = `embeddings:${options.model}`;
    this.dim = options.dim ?? 768;
    this.headers = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 2;
    this.batchSize = options.batchSize ?? 32;
    this.prefixes = { query: options.queryPrefix ?? '', document: options.documentPrefix ?? '' };
    this.retryDelayMs = options.retryDelayMs;
  }

  async embed(texts: string[], mode: EncodeMode): Promise<Float32Array[]> {
    const results: Float32Array[] = texts.map(() => new Float32Array(this.dim));
    const pending = texts.flatMap((text, index) => (text.trim() ? [index] : []));
    for (let start = 0; start < pending.length; start += this.batchSize) {
      const batch = pending.slice(start, start + this.batchSize);
      const answers = await this.request(batch.map((index) => this.prefixes[mode] + texts[index]!));
      batch.forEach((index, i) => {
        results[index] = answers[i]!;
      });
    }
    return results;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const answer = await postJson({
      service: 'embeddings',
      url: this.url,
      body: { input, model: this.model },
      headers: this.headers,
      timeoutMs: this.timeoutMs,
      retries: this.retries,
      retryDelayMs: this.retryDelayMs,
    });
    const parsed = embeddingsResponseSchema.safeParse(answer);
    if (!parsed.success) {
      throw this.outOfContract(
        `expected {data: [{index, embedding: number[]}]}: ${parsed.error.issues[0]?.message}`,
      );
    }
    const entries = parsed.data.data;
    if (entries.length !== input.length) {
      throw this.outOfContract(`sent ${input.length} inputs, got ${entries.length} embeddings`);
    }
    const byIndex = new Array<Float32Array | undefined>(input.length);
    for (const entry of entries) {
      if (entry.index >= input.length || byIndex[entry.index]) {
        throw this.outOfContract(`embedding index ${entry.index} is out of range or repeated`);
      }
      if (entry.embedding.length !== this.dim) {
        throw this.outOfContract(
          `expected ${this.dim}-dimension embeddings, got ${entry.embedding.length} (set the encoder's dim to match the model)`,
        );
      }
      byIndex[entry.index] = normalizeRows(Float32Array.from(entry.embedding), this.dim);
    }
    return byIndex as Float32Array[];
  }

  private outOfContract(problem: string): EncoderResponseError {
    return new EncoderResponseError('embeddings', this.url, problem);
  }
}
