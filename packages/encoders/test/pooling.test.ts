import { closedPortUrl, failure, type Reply, type SeenRequest, useServers } from '@tessera/testing';
import { describe, expect, it } from 'vitest';
import {
  EncoderRequestError,
  EncoderResponseError,
  EncoderUnavailableError,
  PoolingEncoder,
  packSignBits,
  TOKEN_DIM,
} from '../src/index';
import { patternRow, rowNorms } from './support';

/** Speaks the vLLM pooling contract: one row per whitespace-separated word of each input. */
function pooling(request: SeenRequest): Reply {
  const { input } = request.body as { input: string[] };
  return {
    status: 200,
    json: {
      object: 'list',
      model: 'colbert',
      data: input.map((text, index) => ({
        index,
        object: 'pooling',
        data: text.split(/\s+/).map((_, t) => patternRow(t, TOKEN_DIM)),
      })),
    },
  };
}

const servers = useServers();

describe('PoolingEncoder (integration: local HTTP servers)', () => {
  it('posts {input, model, is_query} to /pooling and parses per-token vectors', async () => {
    const server = await servers.start(pooling);
    const encoder = new PoolingEncoder({ url: server.url, model: 'lightonai/GTE-ModernColBERT-v1' });
    expect(encoder.name).toBe('pooling:lightonai/GTE-ModernColBERT-v1');
    const [query] = await encoder.encode(['tenant search'], 'query');
    const [a, empty, b] = await encoder.encode(['one two three', '', 'four'], 'document');

    expect(server.requests.map((r) => [r.method, r.url])).toEqual([
      ['POST', '/pooling'],
      ['POST', '/pooling'],
    ]);
    expect(server.requests[0]!.body).toEqual({
      input: ['tenant search'],
      model: 'lightonai/GTE-ModernColBERT-v1',
      is_query: true,
    });
    expect(server.requests[1]!.body).toEqual({
      input: ['one two three', 'four'],
      model: 'lightonai/GTE-ModernColBERT-v1',
      is_query: false,
    });
    expect([query!.tokens, a!.tokens, empty!.tokens, b!.tokens]).toEqual([2, 3, 0, 1]);
    for (const norm of rowNorms(a!.vectors, TOKEN_DIM)) expect(norm).toBeCloseTo(1, 5);
    expect(a!.binary).toEqual(packSignBits(a!.vectors));
    // normalizing keeps signs: the bits are those of the raw row
    expect(b!.binary).toEqual(packSignBits(Float32Array.from(patternRow(0, TOKEN_DIM))));
  });

  it('keeps a URL that already ends with /pooling and sends inputs in batches', async () => {
    const server = await servers.start(pooling);
    const encoder = new PoolingEncoder({ url: `${server.url}/pooling/`, model: 'm', batchSize: 2 });
    const results = await encoder.encode(['a1 b1', 'a2', 'a3 b3 c3', 'a4', 'a5'], 'document');
    expect(results.map((r) => r.tokens)).toEqual([2, 1, 3, 1, 1]);
    expect(server.requests.map((r) => [r.url, (r.body as { input: string[] }).input.length])).toEqual([
      ['/pooling', 2],
      ['/pooling', 2],
      ['/pooling', 1],
    ]);
  });

  it('orders results by their index', async () => {
    const server = await servers.start((request) => {
      const answer = pooling(request) as { status: number; json: { data: unknown[] } };
      answer.json.data.reverse();
      return answer;
    });
    const results = await new PoolingEncoder({ url: server.url, model: 'm' }).encode(
      ['a', 'b c d'],
      'document',
    );
    expect(results.map((r) => r.tokens)).toEqual([1, 3]);
  });

  it('retries 503 answers and succeeds on the third attempt', async () => {
    const server = await servers.start((request, count) =>
      count <= 2 ? { status: 503, json: { message: 'model loading' } } : pooling(request),
    );
    const [result] = await new PoolingEncoder({ url: server.url, model: 'm', retries: 2 }).encode(
      ['alpha beta'],
      'document',
    );
    expect(result!.tokens).toBe(2);
    expect(server.requests).toHaveLength(3);
  });

  it('fails with EncoderUnavailableError naming pooling and the URL when every attempt answers 500', async () => {
    const server = await servers.start(() => ({ status: 500, json: { message: 'CUDA out of memory' } }));
    const error = await failure(
      new PoolingEncoder({ url: server.url, model: 'm', retries: 2 }).encode(['x y'], 'query'),
    );
    expect(error).toBeInstanceOf(EncoderUnavailableError);
    expect((error as EncoderUnavailableError).status).toBe(502);
    expect(error.message).toBe(
      `Embedding service 'pooling' at ${server.url}/pooling answered 500: CUDA out of memory (3 attempts)`,
    );
    expect(server.requests).toHaveLength(3);
  });

  it('gives up on a server that never answers once the timeout passes', async () => {
    const server = await servers.start(() => 'hang');
    const started = Date.now();
    const error = await failure(
      new PoolingEncoder({ url: server.url, model: 'm', timeoutMs: 200, retries: 1 }).encode(
        ['slow'],
        'query',
      ),
    );
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(EncoderUnavailableError);
    expect(error.message).toBe(
      `Embedding service 'pooling' at ${server.url}/pooling did not answer within 200 ms (2 attempts)`,
    );
    // 2 × 200 ms plus one 100 ms backoff; the default 30 s timeout would be far beyond this bound.
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('fails fast on a closed port, naming the service, the URL and the refused connection', async () => {
    const url = await closedPortUrl();
    const error = await failure(
      new PoolingEncoder({ url, model: 'm', retries: 2 }).encode(['x'], 'document'),
    );
    expect(error).toBeInstanceOf(EncoderUnavailableError);
    expect(error.message).toMatch(
      new RegExp(
        `^Embedding service 'pooling' at ${url}/pooling did not answer: connect ECONNREFUSED .* \\(3 attempts\\)$`,
      ),
    );
    expect((error as EncoderUnavailableError).attempts).toBe(3);
  });

  it('does not retry a 400 and reports the server message', async () => {
    const server = await servers.start(() => ({
      status: 400,
      json: { object: 'error', message: 'This model does not support the pooling task', code: 400 },
    }));
    const error = await failure(
      new PoolingEncoder({ url: server.url, model: 'm', retries: 2 }).encode(['x'], 'query'),
    );
    expect(error).toBeInstanceOf(EncoderRequestError);
    expect(error.message).toBe(
      `Embedding service 'pooling' at ${server.url}/pooling rejected the request with 400: This model does not support the pooling task`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('rejects token vectors that do not have 128 dimensions', async () => {
    const server = await servers.start(() => ({
      status: 200,
      json: { data: [{ index: 0, data: [patternRow(0, 96)] }] },
    }));
    const error = await failure(
      new PoolingEncoder({ url: server.url, model: 'm' }).encode(['x'], 'document'),
    );
    expect(error).toBeInstanceOf(EncoderResponseError);
    expect(error.message).toBe(
      `Embedding service 'pooling' at ${server.url}/pooling answered out of contract: token vectors must have 128 dimensions, input 0 token 0 has 96`,
    );
  });

  it('rejects an answer with fewer results than inputs or of another shape', async () => {
    const server = await servers.start((_request, count) =>
      count === 1
        ? { status: 200, json: { data: [{ index: 0, data: [patternRow(0, TOKEN_DIM)] }] } }
        : { status: 200, json: { embeddings: [] } },
    );
    const encoder = new PoolingEncoder({ url: server.url, model: 'm' });
    expect((await failure(encoder.encode(['a', 'b'], 'document'))).message).toMatch(
      /sent 2 inputs, got 1 results/,
    );
    const shape = await failure(encoder.encode(['a'], 'document'));
    expect(shape).toBeInstanceOf(EncoderResponseError);
    expect(shape.message).toMatch(/expected \{data: \[\{index, data: number\[\]\[\]\}\]\}/);
  });
});
