/**
 * The video and audio embedding sidecars of document 3 in front of an Infinity embedding server (its
 * OpenAI-style `POST /embeddings` with `modality` text, image or audio): `POST /embed/video` samples frames of
 * the clip with ffmpeg and averages their image vectors, `POST /embed/audio` sends the clip as 48 kHz WAV,
 * `POST /embed/text` sends texts, all in the model's one joint space; `GET /health` answers ready with the
 * model and its revision once Infinity serves the model, 503 before. Every vector comes back L2-normalised with
 * the model revision that made it.
 */

import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { networkMessage } from '@tessera/core';
import {
  CorruptMediaError,
  defaultFfmpeg,
  type Ffmpeg,
  lastError,
  probeMedia,
  withSpooledFile,
  withTempDir,
} from '@tessera/media';
import { z } from 'zod';

export interface SidecarOptions {
  kind: 'video' | 'audio';
  infinityUrl: string;
  model: string;
  modelRevision: string;
  videoFrames: number;
  audioSeconds: number;
  maxBodyBytes: number;
  ffmpeg?: Ffmpeg;
  /** Per request to Infinity. Default 120 s. */
  timeoutMs?: number;
}

/** An answer with its status, as the contract has it. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const Base64 = z
  .string()
  .min(1)
  .regex(/^[A-Za-z0-9+/\s]+={0,2}\s*$/, 'must be base64');
const MediaBody = (field: 'video' | 'audio') =>
  z.object({ [field]: Base64, mime_type: z.string().min(1).max(200).optional() });
const TextBody = z.object({ texts: z.array(z.string()).min(1).max(256) });

const InfinityAnswer = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().int() })),
});
const InfinityModels = z.object({ data: z.array(z.object({ id: z.string() })) });

function normalized(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
  return norm > 0 ? vector.map((v) => v / norm) : vector;
}

function mean(vectors: number[][]): number[] {
  const dim = vectors[0]!.length;
  const sum = new Array<number>(dim).fill(0);
  for (const vector of vectors) {
    if (vector.length !== dim) throw new Refusal(502, 'Infinity answered vectors of different lengths');
    for (let i = 0; i < dim; i++) sum[i]! += vector[i]!;
  }
  return sum.map((v) => v / vectors.length);
}

export class EmbeddingSidecarServer {
  private readonly base: string;

  constructor(private readonly options: SidecarOptions) {
    this.base = options.infinityUrl.replace(/\/+$/, '');
  }

  private identity() {
    return { model: this.options.model, model_revision: this.options.modelRevision };
  }

  /** `{status: 'ready', model, model_revision}` once Infinity lists the model; 503 and why before. */
  async health(): Promise<{ status: number; body: unknown }> {
    let listed: string[];
    try {
      const response = await fetch(`${this.base}/models`, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok)
        return { status: 503, body: { status: 'loading', detail: `Infinity answered ${response.status}` } };
      const parsed = InfinityModels.safeParse(await response.json());
      if (!parsed.success)
        return { status: 503, body: { status: 'loading', detail: 'Infinity listed no models' } };
      listed = parsed.data.data.map((m) => m.id);
    } catch (error) {
      return {
        status: 503,
        body: { status: 'loading', detail: `Infinity did not answer: ${networkMessage(error)}` },
      };
    }
    if (!listed.includes(this.options.model)) {
      return {
        status: 503,
        body: {
          status: 'loading',
          detail: `Infinity serves ${listed.join(', ') || 'no model'}, not ${this.options.model}`,
        },
      };
    }
    return { status: 200, body: { status: 'ready', ...this.identity() } };
  }

  /** One request to Infinity's `/embeddings`; its vectors in input order. */
  private async embed(modality: 'text' | 'image' | 'audio', input: string[]): Promise<number[][]> {
    let response: Response;
    try {
      response = await fetch(`${this.base}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: this.options.model, input, modality, encoding_format: 'float' }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 120_000),
      });
    } catch (error) {
      throw new Refusal(503, `Infinity did not answer: ${networkMessage(error)}`);
    }
    const text = await response.text();
    if (response.status === 503) throw new Refusal(503, 'Infinity is loading the model');
    if (!response.ok) throw new Refusal(502, `Infinity answered ${response.status}: ${text.slice(0, 300)}`);
    let parsed: z.infer<typeof InfinityAnswer>;
    try {
      parsed = InfinityAnswer.parse(JSON.parse(text));
    } catch {
      throw new Refusal(502, `Infinity answered out of contract: ${text.slice(0, 300)}`);
    }
    const vectors = new Array<number[]>(input.length);
    for (const item of parsed.data) vectors[item.index] = item.embedding;
    if (parsed.data.length !== input.length || vectors.some((v) => !v || v.length === 0)) {
      throw new Refusal(502, `Infinity answered ${parsed.data.length} vectors for ${input.length} inputs`);
    }
    return vectors;
  }

  async text(body: unknown) {
    const parsed = TextBody.safeParse(body);
    if (!parsed.success)
      throw new Refusal(400, `Expected {texts: string[]} (1 to 256): ${parsed.error.issues[0]!.message}`);
    const vectors = await this.embed('text', parsed.data.texts);
    return { embeddings: vectors.map(normalized), ...this.identity() };
  }

  async media(field: 'video' | 'audio', body: unknown) {
    if (field !== this.options.kind)
      throw new Refusal(404, `This sidecar embeds ${this.options.kind}, not ${field}`);
    const parsed = MediaBody(field).safeParse(body);
    if (!parsed.success) {
      throw new Refusal(
        400,
        `Expected {${field}: base64, mime_type}: ${parsed.error.issues[0]!.path.join('.')} ${parsed.error.issues[0]!.message}`,
      );
    }
    const bytes = Buffer.from(parsed.data[field] as string, 'base64');
    if (bytes.length === 0) throw new Refusal(400, `${field} is empty`);
    const ffmpeg = this.options.ffmpeg ?? (await defaultFfmpeg());
    const vector = await withSpooledFile(bytes, '', async (file) =>
      field === 'video' ? this.videoVector(ffmpeg, file) : this.audioVector(ffmpeg, file),
    ).catch((error: unknown) => {
      if (error instanceof CorruptMediaError) throw new Refusal(400, error.message);
      throw error;
    });
    return { embedding: normalized(vector), ...this.identity() };
  }

  /** Frames evenly over the clip (the middle of each of N equal stretches), their image vectors averaged. */
  private async videoVector(ffmpeg: Ffmpeg, file: string): Promise<number[]> {
    const probe = await probeMedia(ffmpeg, file, 'the video');
    if (!probe.video) throw new Refusal(400, 'the video has no video stream');
    const duration = probe.duration ?? 0;
    const count = duration > 0 ? this.options.videoFrames : 1;
    const images = await withTempDir(async (dir) => {
      const frames: string[] = [];
      for (let i = 0; i < count; i++) {
        const at = duration > 0 ? ((i + 0.5) * duration) / count : 0;
        const png = path.join(dir, `${i}.png`);
        const { code, stderr } = await ffmpeg.run(
          [
            '-v',
            'error',
            '-ss',
            at.toFixed(3),
            '-i',
            file,
            '-frames:v',
            '1',
            '-vf',
            "scale='min(640,iw)':-2",
            png,
          ],
          { inputs: [file], outputDir: dir },
        );
        const bytes = code === 0 ? await readFile(png).catch(() => undefined) : undefined;
        if (!bytes) {
          if (i === 0)
            throw new Refusal(
              400,
              `the video cannot be decoded: ${lastError(stderr).replaceAll(file, 'the video')}`,
            );
          continue;
        }
        frames.push(`data:image/png;base64,${bytes.toString('base64')}`);
      }
      return frames;
    });
    return mean(await this.embed('image', images));
  }

  /** The clip's first seconds as 48 kHz mono WAV (what CLAP-style models take). */
  private async audioVector(ffmpeg: Ffmpeg, file: string): Promise<number[]> {
    const wav = await withTempDir(async (dir) => {
      const out = path.join(dir, 'clip.wav');
      const { code, stderr } = await ffmpeg.run(
        [
          '-v',
          'error',
          '-i',
          file,
          '-t',
          String(this.options.audioSeconds),
          '-vn',
          '-ac',
          '1',
          '-ar',
          '48000',
          out,
        ],
        { inputs: [file], outputDir: dir },
      );
      const bytes = code === 0 ? await readFile(out).catch(() => undefined) : undefined;
      if (!bytes || bytes.length <= 44) {
        throw new Refusal(
          400,
          `the audio cannot be decoded: ${lastError(stderr).replaceAll(file, 'the audio')}`,
        );
      }
      return bytes;
    });
    const [vector] = await this.embed('audio', [`data:audio/wav;base64,${wav.toString('base64')}`]);
    return vector!;
  }

  /** The HTTP server of the contract. */
  listen(port: number, host: string): Promise<Server> {
    const server = createServer((req, res) => {
      void this.route(req, res);
    });
    return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const url = new URL(req.url ?? '/', 'http://sidecar');
      if (req.method === 'GET' && url.pathname === '/health') {
        const { status, body } = await this.health();
        return send(status, body);
      }
      const routes: Record<string, (body: unknown) => Promise<unknown>> = {
        '/embed/text': (body) => this.text(body),
        '/embed/video': (body) => this.media('video', body),
        '/embed/audio': (body) => this.media('audio', body),
      };
      const handler = routes[url.pathname];
      if (!handler) return send(404, { error: `No route ${req.method} ${url.pathname}` });
      if (req.method !== 'POST') return send(405, { error: `${url.pathname} takes POST` });
      return send(200, await handler(await this.body(req)));
    } catch (error) {
      if (error instanceof Refusal) return send(error.status, { error: error.message });
      send(500, { error: 'The sidecar failed; see its log' });
      process.stderr.write(`embedding sidecar: ${(error as Error).stack ?? String(error)}\n`);
    }
  }

  private async body(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    let size = 0;
    // A body over the limit is read to its end and dropped, so that the answer reaches the client.
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size <= this.options.maxBodyBytes) chunks.push(chunk as Buffer);
    }
    if (size > this.options.maxBodyBytes)
      throw new Refusal(413, `The body is over ${this.options.maxBodyBytes} bytes`);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new Refusal(400, 'The body is not JSON');
    }
  }
}
