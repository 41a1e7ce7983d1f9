/**
 * The video and audio embedding sidecars (document 3): `POST /embed/video` or `/embed/audio` and `/embed/text`
 * in one joint space, `GET /health` answering `{status: 'ready', model, model_revision}` once the model is
 * loaded and 503 before. Calls wait for readiness with a bounded backoff, and every vector comes back with the
 * model revision that made it, so it can be stored beside the vector.
 */
import { networkMessage } from '@tessera/core';
import { EncoderResponseError, type EncoderService, postJson } from '@tessera/encoders';
import { z } from 'zod';
import { SidecarNotReadyError } from './errors';

export type SidecarKind = 'video' | 'audio';

export interface SidecarIdentity {
  model: string;
  model_revision: string;
}

export interface MediaEmbedding extends SidecarIdentity {
  vector: Float32Array;
}

export interface MediaEmbedder {
  readonly name: string;
  /** One vector for a clip (video) or a stretch of audio, in the space of `embedText`. */
  embedMedia(data: Uint8Array, mime: string): Promise<MediaEmbedding>;
  embedText(texts: string[]): Promise<MediaEmbedding[]>;
}

export interface SidecarOptions {
  url: string;
  kind: SidecarKind;
  /** Expected vector length; answers of another length are refused. Video: 768. */
  dim?: number;
  timeoutMs?: number;
  retries?: number;
  /** Longest wait for `GET /health` to say ready. Default 120 s. */
  readyTimeoutMs?: number;
  /** First pause between health checks, doubled up to `maxDelayMs`. Defaults 250 ms and 5 s. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

const health = z.object({
  status: z.string(),
  model: z.string().optional(),
  model_revision: z.string().optional(),
});
const vectorAnswer = z.object({
  embedding: z.array(z.number()),
  model: z.string(),
  model_revision: z.string(),
});
const textAnswer = z.object({
  embeddings: z.array(z.array(z.number())),
  model: z.string(),
  model_revision: z.string(),
});

export class EmbeddingSidecar implements MediaEmbedder {
  readonly name: string;
  private readonly base: string;
  private readonly service: EncoderService;
  private ready: Promise<SidecarIdentity> | undefined;

  constructor(private readonly options: SidecarOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.service = options.kind === 'video' ? 'video_embed' : 'audio_embed';
    this.name = `${options.kind}-embed:${this.base}`;
  }

  /** Waits until `GET /health` answers ready; 503 and refused connections are waited out, up to the bound. */
  waitReady(): Promise<SidecarIdentity> {
    this.ready ??= this.poll().catch((error) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async poll(): Promise<SidecarIdentity> {
    const started = Date.now();
    const bound = this.options.readyTimeoutMs ?? 120_000;
    let delay = this.options.initialDelayMs ?? 250;
    let last = 'no answer yet';
    for (;;) {
      const remaining = bound - (Date.now() - started);
      const perCheck = this.options.timeoutMs ?? 10_000;
      try {
        const response = await fetch(`${this.base}/health`, {
          signal: AbortSignal.timeout(Math.max(1, Math.min(remaining, perCheck))),
        });
        const text = await response.text();
        if (response.ok) {
          const parsed = health.safeParse(safeJson(text));
          if (
            parsed.success &&
            parsed.data.status === 'ready' &&
            parsed.data.model &&
            parsed.data.model_revision
          ) {
            return { model: parsed.data.model, model_revision: parsed.data.model_revision };
          }
          last = `health answered ${response.status} without {status: 'ready', model, model_revision}: ${text.slice(0, 200)}`;
        } else if (response.status >= 400 && response.status < 500) {
          throw new SidecarNotReadyError(
            this.base,
            Date.now() - started,
            `health answered ${response.status}`,
          );
        } else {
          last = `health answered ${response.status}${response.status === 503 ? ' (loading)' : ''}`;
        }
      } catch (error) {
        if (error instanceof SidecarNotReadyError) throw error;
        // A check cut short by the end of the wait says nothing new: the last answer is the one to name.
        const cutByBound = remaining < perCheck && Date.now() - started >= bound;
        if (!(cutByBound && last !== 'no answer yet'))
          last = `health did not answer: ${networkMessage(error)}`;
      }
      const waited = Date.now() - started;
      if (waited + delay > bound) throw new SidecarNotReadyError(this.base, waited, last);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, this.options.maxDelayMs ?? 5_000);
    }
  }

  async embedMedia(data: Uint8Array, mime: string): Promise<MediaEmbedding> {
    await this.waitReady();
    const field = this.options.kind;
    const answer = await this.post(`/embed/${field}`, {
      [field]: Buffer.from(data).toString('base64'),
      mime_type: mime,
    });
    const parsed = vectorAnswer.safeParse(answer);
    if (!parsed.success)
      throw this.outOfContract(`/embed/${field}`, 'expected {embedding: number[], model, model_revision}');
    return { vector: this.vector(parsed.data.embedding, `/embed/${field}`), ...identity(parsed.data) };
  }

  async embedText(texts: string[]): Promise<MediaEmbedding[]> {
    if (texts.length === 0) return [];
    await this.waitReady();
    const parsed = textAnswer.safeParse(await this.post('/embed/text', { texts }));
    if (!parsed.success) {
      throw this.outOfContract('/embed/text', 'expected {embeddings: number[][], model, model_revision}');
    }
    if (parsed.data.embeddings.length !== texts.length) {
      throw this.outOfContract(
        '/embed/text',
        `sent ${texts.length} texts, got ${parsed.data.embeddings.length} vectors`,
      );
    }
    return parsed.data.embeddings.map((row) => ({
      vector: this.vector(row, '/embed/text'),
      ...identity(parsed.data),
    }));
  }

  private post(route: string, body: unknown): Promise<unknown> {
    return postJson({
      service: this.service,
      url: `${this.base}${route}`,
      body,
      timeoutMs: this.options.timeoutMs ?? 120_000,
      retries: this.options.retries ?? 2,
    });
  }

  private vector(values: number[], route: string): Float32Array {
    if (values.length === 0 || (this.options.dim && values.length !== this.options.dim)) {
      throw this.outOfContract(
        route,
        `vectors must have ${this.options.dim ?? 'some'} dimensions, got ${values.length}`,
      );
    }
    return Float32Array.from(values);
  }

  private outOfContract(route: string, problem: string): EncoderResponseError {
    return new EncoderResponseError(this.service, `${this.base}${route}`, problem);
  }
}

const identity = (answer: SidecarIdentity): SidecarIdentity => ({
  model: answer.model,
  model_revision: answer.model_revision,
});

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
