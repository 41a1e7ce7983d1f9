import { EncoderRequestError, EncoderResponseError, EncoderUnavailableError } from '@tessera/encoders';
import { closedPortUrl, failure, type SeenRequest, useServers } from '@tessera/testing';
import { visionChat } from '@tessera/testing/media';
import { describe, expect, it } from 'vitest';
import {
  CAPTION_PROMPT,
  EmbeddingSidecar,
  InferenceCallError,
  OpenAICaptioner,
  PATCH_DIM,
  SidecarNotReadyError,
  VisualPoolingEncoder,
} from '../src/index';

const servers = useServers();
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);

describe('OpenAICaptioner (integration: loopback vision chat server)', () => {
  it('sends the prompt and the image as a data URL, and answers the caption on one line', async () => {
    const seen: string[] = [];
    const server = await servers.start(
      visionChat((image, prompt) => {
        seen.push(image, prompt);
        return ' A woman in a lab coat\n holds a glowing vial. ';
      }),
    );
    const captioner = new OpenAICaptioner({
      baseURL: `${server.url}/v1`,
      model: 'Qwen/Qwen2.5-VL-7B-Instruct',
    });
    expect(captioner.name).toBe('caption:Qwen/Qwen2.5-VL-7B-Instruct');
    expect(await captioner.caption(PNG, 'image/png')).toBe('A woman in a lab coat holds a glowing vial.');
    expect(seen).toEqual([`data:image/png;base64,${PNG.toString('base64')}`, CAPTION_PROMPT]);
    expect(server.requests[0]!.body).toMatchObject({ model: 'Qwen/Qwen2.5-VL-7B-Instruct', temperature: 0 });
  });

  it('fails with InferenceCallError on an empty caption and on a server error', async () => {
    const server = await servers.start(
      visionChat((_i, _p, count) =>
        count === 1 ? '  ' : { status: 400, json: { error: { message: 'image too large' } } },
      ),
    );
    const captioner = new OpenAICaptioner({ baseURL: `${server.url}/v1`, model: 'm', attempts: 1 });
    const empty = await failure(captioner.caption(PNG, 'image/png'));
    expect(empty).toBeInstanceOf(InferenceCallError);
    expect(empty.message).toBe(`Captioning endpoint at ${server.url}/v1 answered without a caption`);
    expect((await failure(captioner.caption(PNG, 'image/png'))).message).toBe(
      `Captioning endpoint at ${server.url}/v1 answered 400: image too large (1 attempt)`,
    );
  });
});

/** A sidecar that answers 503 to its first `loading` health checks, then serves the contract. */
function sidecar(options: { loading: number; dim: number; revision?: string }) {
  let healthChecks = 0;
  return (request: SeenRequest) => {
    if (request.method === 'GET' && request.url === '/health') {
      healthChecks++;
      return healthChecks <= options.loading
        ? { status: 503, json: { status: 'loading' } }
        : {
            status: 200,
            json: { status: 'ready', model: 'microsoft/xclip-base-patch32', model_revision: 'abc123' },
          };
    }
    const revision = options.revision ?? 'abc123';
    const row = (seed: number) => Array.from({ length: options.dim }, (_, i) => ((i + seed) % 7) - 3);
    if (request.url === '/embed/text') {
      const { texts } = request.body as { texts: string[] };
      return {
        status: 200,
        json: {
          embeddings: texts.map((_, i) => row(i)),
          model: 'microsoft/xclip-base-patch32',
          model_revision: revision,
        },
      };
    }
    if (request.url === '/embed/video' || request.url === '/embed/audio') {
      return {
        status: 200,
        json: { embedding: row(9), model: 'microsoft/xclip-base-patch32', model_revision: revision },
      };
    }
    return { status: 404, json: { detail: 'Not Found' } };
  };
}

describe('EmbeddingSidecar (integration: loopback /embed/* sidecar)', () => {
  it('waits through 503 while the model loads, then embeds a clip and texts with the model revision', async () => {
    const server = await servers.start(sidecar({ loading: 2, dim: 768 }));
    const embedder = new EmbeddingSidecar({ url: server.url, kind: 'video', dim: 768, initialDelayMs: 20 });
    const clip = Buffer.from('fake mp4 bytes');
    const video = await embedder.embedMedia(clip, 'video/mp4');
    expect(video.vector).toHaveLength(768);
    expect(video).toMatchObject({ model: 'microsoft/xclip-base-patch32', model_revision: 'abc123' });
    const texts = await embedder.embedText(['a woman in a lab', 'glowing vial']);
    expect(texts.map((t) => [t.vector.length, t.model_revision])).toEqual([
      [768, 'abc123'],
      [768, 'abc123'],
    ]);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /health',
      'GET /health',
      'GET /health',
      'POST /embed/video',
      'POST /embed/text',
    ]);
    expect(server.requests[3]!.body).toEqual({ video: clip.toString('base64'), mime_type: 'video/mp4' });
  });

  it('keeps the revision each answer names, so vectors are stored with the model that made them', async () => {
    const server = await servers.start(sidecar({ loading: 0, dim: 512, revision: 'def456' }));
    const embedder = new EmbeddingSidecar({ url: server.url, kind: 'audio' });
    expect((await embedder.embedMedia(Buffer.from('wav'), 'audio/wav')).model_revision).toBe('def456');
    expect(server.requests.at(-1)!.url).toBe('/embed/audio');
  });

  it('gives up after its bounded wait with SidecarNotReadyError naming the last answer', async () => {
    const server = await servers.start(sidecar({ loading: 1_000, dim: 768 }));
    const embedder = new EmbeddingSidecar({
      url: server.url,
      kind: 'video',
      readyTimeoutMs: 300,
      initialDelayMs: 20,
      maxDelayMs: 80,
    });
    const started = Date.now();
    const error = await failure(embedder.embedText(['x']));
    expect(error).toBeInstanceOf(SidecarNotReadyError);
    expect(error.message).toMatch(
      new RegExp(
        `^Embedding sidecar at ${server.url} was not ready after \\d+ ms: health answered 503 \\(loading\\)$`,
      ),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    // 20, 40, 80, 80… ms between checks: a handful, not a busy loop.
    expect(server.requests.length).toBeGreaterThanOrEqual(3);
    expect(server.requests.length).toBeLessThan(10);
  });

  it('waits for a sidecar that is down, and fails fast on a 404 health route', async () => {
    const down = new EmbeddingSidecar({
      url: await closedPortUrl(),
      kind: 'audio',
      readyTimeoutMs: 150,
      initialDelayMs: 20,
    });
    expect((await failure(down.embedText(['x']))).message).toMatch(/health did not answer: .*ECONNREFUSED/);
    const wrong = await servers.start(() => ({ status: 404, json: { detail: 'Not Found' } }));
    const error = await failure(new EmbeddingSidecar({ url: wrong.url, kind: 'audio' }).embedText(['x']));
    expect(error.message).toMatch(/health answered 404$/);
    expect(wrong.requests).toHaveLength(1);
  });

  it('refuses vectors of the wrong length and garbage answers', async () => {
    const server = await servers.start(sidecar({ loading: 0, dim: 512 }));
    const error = await failure(
      new EmbeddingSidecar({ url: server.url, kind: 'video', dim: 768 }).embedText(['x']),
    );
    expect(error).toBeInstanceOf(EncoderResponseError);
    expect(error.message).toBe(
      `Embedding service 'video_embed' at ${server.url}/embed/text answered out of contract: vectors must have 768 dimensions, got 512`,
    );
    const garbage = await servers.start((request) =>
      request.url === '/health'
        ? { status: 200, json: { status: 'ready', model: 'm', model_revision: 'r' } }
        : { status: 200, text: '<html>oops</html>' },
    );
    const answer = await failure(
      new EmbeddingSidecar({ url: garbage.url, kind: 'audio' }).embedMedia(PNG, 'audio/wav'),
    );
    expect(answer).toBeInstanceOf(EncoderResponseError);
    expect(answer.message).toMatch(/answer is not JSON: <html>oops<\/html>/);
  });
});

function pooling(request: SeenRequest) {
  const body = request.body as { input?: string[]; messages?: unknown[] };
  const row = (seed: number) => Array.from({ length: PATCH_DIM }, (_, i) => ((i * 3 + seed) % 5) - 2);
  if (body.messages) return { status: 200, json: { data: [{ index: 0, data: [row(0), row(1), row(2)] }] } };
  return {
    status: 200,
    json: {
      data: (body.input ?? []).map((text, index) => ({ index, data: text.split(' ').map((_, t) => row(t)) })),
    },
  };
}

describe('VisualPoolingEncoder (integration: loopback /pooling runner)', () => {
  it('sends an image as a chat message with a data URL and a query as input text, 320 dims a row', async () => {
    const server = await servers.start(pooling);
    const encoder = new VisualPoolingEncoder({ url: server.url, model: 'vidore/colsmol-500m' });
    const image = await encoder.encodeImage(PNG, 'image/png');
    expect(image.tokens).toBe(3);
    expect(image.vectors).toHaveLength(3 * PATCH_DIM);
    expect(image.binary).toHaveLength(3 * 40);
    const norm = Math.hypot(...image.vectors.subarray(0, PATCH_DIM));
    expect(norm).toBeCloseTo(1, 5);
    const [query] = await encoder.encodeQueries(['woman lab coat']);
    expect(query!.tokens).toBe(3);
    expect(server.requests.map((r) => r.url)).toEqual(['/pooling', '/pooling']);
    expect(server.requests[0]!.body).toEqual({
      model: 'vidore/colsmol-500m',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
          ],
        },
      ],
    });
    expect(server.requests[1]!.body).toEqual({
      model: 'vidore/colsmol-500m',
      input: ['woman lab coat'],
      is_query: true,
    });
  });

  it('refuses rows that are not 320 floats, and reports a 400 and an unreachable runner', async () => {
    const narrow = await servers.start(() => ({
      status: 200,
      json: { data: [{ index: 0, data: [[1, 2, 3]] }] },
    }));
    expect(
      (await failure(new VisualPoolingEncoder({ url: narrow.url, model: 'm' }).encodeImage(PNG, 'image/png')))
        .message,
    ).toBe(
      `Embedding service 'visual_pooling' at ${narrow.url}/pooling answered out of contract: patch vectors must have 320 dimensions, row 0 has 3`,
    );
    const refusing = await servers.start(() => ({
      status: 400,
      json: { message: 'model does not support images' },
    }));
    const error = await failure(
      new VisualPoolingEncoder({ url: refusing.url, model: 'm' }).encodeImage(PNG, 'image/png'),
    );
    expect(error).toBeInstanceOf(EncoderRequestError);
    const down = await failure(
      new VisualPoolingEncoder({ url: await closedPortUrl(), model: 'm', retries: 0 }).encodeQueries(['x']),
    );
    expect(down).toBeInstanceOf(EncoderUnavailableError);
  });
});
