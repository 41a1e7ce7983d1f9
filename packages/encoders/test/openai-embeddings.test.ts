import { closedPortUrl, failure, type Reply, type SeenRequest, useServers } from '@tessera/testing';
import { describe, expect, it } from 'vitest';
import {
  EncoderRequestError,
  EncoderResponseError,
  EncoderUnavailableError,
  OpenAIEmbeddingsEncoder,
} from '../src/index';
import { dot, patternRow } from './support';

/** Speaks the OpenAI embeddings contract; the vector's first value encodes the input's length. */
function embeddings(dim: number) {
  return (request: SeenRequest): Reply => {
    const { input, model } = request.body as { input: string[]; model: string };
    return {
      status: 200,
      json: {
        object: 'list',
        model,
        data: input.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: [text.length, ...patternRow(index, dim - 1)],
        })),
        usage: { prompt_tokens: 1, total_tokens: 1 },
      },
    };
  };
}

const servers = useServers();

describe('OpenAIEmbeddingsEncoder (integration: local HTTP servers)', () => {
  it('posts {input, model} to /v1/embeddings with the bearer key and returns unit vectors', async () => {
    const server = await servers.start(embeddings(768));
    const encoder = new OpenAIEmbeddingsEncoder({
      url: server.url,
      model: 'nomic-ai/nomic-embed-text-v1.5',
      apiKey: 'sk-test',
    });
    expect([encoder.name, encoder.dim]).toEqual(['embeddings:nomic-ai/nomic-embed-text-v1.5', 768]);
    const vectors = await encoder.embed(['short', '', 'a longer text'], 'document');

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect([request!.method, request!.url]).toEqual(['POST', '/v1/embeddings']);
    expect(request!.headers.authorization).toBe('Bearer sk-test');
    expect(request!.body).toEqual({
      input: ['short', 'a longer text'],
      model: 'nomic-ai/nomic-embed-text-v1.5',
    });
    expect(vectors).toHaveLength(3);
    expect(Math.sqrt(dot(vectors[0]!, vectors[0]!))).toBeCloseTo(1, 5);
    expect(Math.sqrt(dot(vectors[2]!, vectors[2]!))).toBeCloseTo(1, 5);
    expect(vectors[1]!.every((value) => value === 0)).toBe(true);
    // the first (pre-normalization) value was the text length: 5 for 'short', 13 for 'a longer text'
    expect(vectors[0]![0]! / vectors[0]![1]!).toBeCloseTo(5 / patternRow(0, 1)[0]!, 4);
    expect(vectors[2]![0]! / vectors[2]![1]!).toBeCloseTo(13 / patternRow(1, 1)[0]!, 4);
  });

  it('sends no Authorization header without a key, and honours /v1 and /embeddings URLs', async () => {
    const server = await servers.start(embeddings(768));
    await new OpenAIEmbeddingsEncoder({ url: `${server.url}/v1`, model: 'm' }).embed(['a'], 'query');
    await new OpenAIEmbeddingsEncoder({ url: `${server.url}/custom/embeddings`, model: 'm' }).embed(
      ['a'],
      'query',
    );
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/embeddings', '/custom/embeddings']);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('adds the configured query and document prefixes', async () => {
    const server = await servers.start(embeddings(768));
    const encoder = new OpenAIEmbeddingsEncoder({
      url: server.url,
      model: 'm',
      queryPrefix: 'search_query: ',
      documentPrefix: 'search_document: ',
    });
    await encoder.embed(['q'], 'query');
    await encoder.embed(['d'], 'document');
    expect(server.requests.map((r) => (r.body as { input: string[] }).input)).toEqual([
      ['search_query: q'],
      ['search_document: d'],
    ]);
  });

  it('orders embeddings by index and sends inputs in batches', async () => {
    const server = await servers.start((request) => {
      const answer = embeddings(768)(request) as { status: number; json: { data: unknown[] } };
      answer.json.data.reverse();
      return answer;
    });
    const vectors = await new OpenAIEmbeddingsEncoder({ url: server.url, model: 'm', batchSize: 2 }).embed(
      ['a', 'bb', 'ccc'],
      'document',
    );
    expect(server.requests.map((r) => (r.body as { input: string[] }).input)).toEqual([['a', 'bb'], ['ccc']]);
    expect(vectors[0]![0]! / vectors[0]![1]!).toBeCloseTo(1 / patternRow(0, 1)[0]!, 4);
    expect(vectors[1]![0]! / vectors[1]![1]!).toBeCloseTo(2 / patternRow(1, 1)[0]!, 4);
  });

  it('retries 503 answers and succeeds on the third attempt', async () => {
    const server = await servers.start((request, count) =>
      count <= 2 ? { status: 503, text: 'upstream busy' } : embeddings(768)(request),
    );
    const vectors = await new OpenAIEmbeddingsEncoder({ url: server.url, model: 'm', retries: 2 }).embed(
      ['x'],
      'query',
    );
    expect(vectors[0]).toHaveLength(768);
    expect(server.requests).toHaveLength(3);
  });

  it('fails with EncoderUnavailableError naming embeddings and the URL when every attempt answers 500', async () => {
    const server = await servers.start(() => ({
      status: 500,
      json: { error: { message: 'engine crashed' } },
    }));
    const error = await failure(
      new OpenAIEmbeddingsEncoder({ url: server.url, model: 'm', retries: 1 }).embed(['x'], 'query'),
    );
    expect(error).toBeInstanceOf(EncoderUnavailableError);
    expect(error.message).toBe(
      `Embedding service 'embeddings' at ${server.url}/v1/embeddings answered 500: engine crashed (2 attempts)`,
    );
    expect(server.requests).toHaveLength(2);
  });

  it('gives up on a server that never answers once the timeout passes', async () => {
    const server = await servers.start(() => 'hang');
    const started = Date.now();
    const error = await failure(
      new OpenAIEmbeddingsEncoder({ url: server.url, model: 'm', timeoutMs: 200, retries: 0 }).embed(
        ['x'],
        'query',
      ),
    );
    expect(error).toBeInstanceOf(EncoderUnavailableError);
    expect(error.message).toBe(
      `Embedding service 'embeddings' at ${server.url}/v1/embeddings did not answer within 200 ms (1 attempt)`,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('fails fast on a closed port, naming the service', async () => {
    const url = await closedPortUrl();
    const error = await failure(
      new OpenAIEmbeddingsEncoder({ url, model: 'm', retries: 1 }).embed(['x'], 'document'),
    );
    expect(error).toBeInstanceOf(EncoderUnavailableError);
    expect(error.message).toMatch(
      new RegExp(
        `^Embedding service 'embeddings' at ${url}/v1/embeddings did not answer: connect ECONNREFUSED .* \\(2 attempts\\)$`,
      ),
    );
  });

  it('does not retry a 401 and reports the OpenAI error message', async () => {
    const server = await servers.start(() => ({
      status: 401,
      json: { error: { message: 'Incorrect API key provided' } },
    }));
    const error = await failure(
      new OpenAIEmbeddingsEncoder({ url: server.url, model: 'm', apiKey: 'wrong', retries: 2 }).embed(
        ['x'],
        'query',
      ),
    );
    expect(error).toBeInstanceOf(EncoderRequestError);
    expect((error as EncoderRequestError).upstreamStatus).toBe(401);
    expect(error.message).toBe(
      `Embedding service 'embeddings' at ${server.url}/v1/embeddings rejected the request with 401: Incorrect API key provided`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('rejects embeddings of another dimension than expected', async () => {
    const server = await servers.start(embeddings(384));
    const error = await failure(
      new OpenAIEmbeddingsEncoder({ url: server.url, model: 'm' }).embed(['x'], 'query'),
    );
    expect(error).toBeInstanceOf(EncoderResponseError);
    expect(error.message).toMatch(/expected 768-dimension embeddings, got 384/);
    const vectors = await new OpenAIEmbeddingsEncoder({ url: server.url, model: 'm', dim: 384 }).embed(
      ['x'],
      'query',
    );
    expect(vectors[0]).toHaveLength(384);
  });

  it('rejects an answer that is not JSON', async () => {
    const server = await servers.start(() => ({ status: 200, text: '<html>proxy login</html>' }));
    const error = await failure(
      new OpenAIEmbeddingsEncoder({ url: server.url, model: 'm' }).embed(['x'], 'query'),
    );
    expect(error).toBeInstanceOf(EncoderResponseError);
    expect(error.message).toMatch(/answer is not JSON: <html>proxy login<\/html>/);
  });
});
