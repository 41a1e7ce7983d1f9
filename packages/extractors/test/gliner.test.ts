import { ENTITY_LABELS, EntityExtractionError, GlinerEntityExtractor } from '@tessera/extractors';
import { closedPortUrl, failure, type SeenRequest, useServers } from '@tessera/testing';
import { describe, expect, it } from 'vitest';

const servers = useServers();
const context = { sourceDocId: 'uploads/curie.pdf', segmentId: 'page_3' };
const TEXT = 'She said Marie Curie studied radium in Paris.';

/** A GLiNER sidecar answering the given entities on `POST /predict_entities`. */
function gliner(entities: unknown[]) {
  return (request: SeenRequest) =>
    request.method === 'POST' && request.url === '/predict_entities'
      ? { status: 200, json: { entities } }
      : { status: 404, json: { detail: 'Not Found' } };
}

function span(text: string, label: string, score: number) {
  const start = TEXT.indexOf(text);
  return { text, label, score, start, end: start + text.length };
}

describe('GlinerEntityExtractor (integration: loopback GLiNER server)', () => {
  it('posts {text, labels, threshold} to /predict_entities and answers the filtered entities', async () => {
    const server = await servers.start(
      gliner([
        span('She', 'Person', 0.61),
        span('Marie Curie', 'Person', 0.98),
        span('radium', 'Substance', 0.91),
        span('Paris', 'Location', 0.95),
        span('Paris', 'Organization', 0.52),
        span('M', 'Person', 0.7),
        { text: 'Curie lab', label: 'Organization', score: 0.5, start: 0, end: 9 },
        span('studied', 'Verb', 0.9),
      ]),
    );
    const extractor = new GlinerEntityExtractor({ url: `${server.url}/`, threshold: 0.4 });
    expect(extractor.name).toBe(`gliner:${server.url}/`);
    expect(extractor.labels).toEqual(ENTITY_LABELS);
    const entities = await extractor.extract(TEXT, context);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body).toEqual({ text: TEXT, labels: [...ENTITY_LABELS], threshold: 0.4 });
    expect(entities).toEqual([
      span('Marie Curie', 'Person', 0.98),
      span('radium', 'Substance', 0.91),
      span('Paris', 'Location', 0.95),
    ]);
  });

  it('keeps an empty prediction empty', async () => {
    const server = await servers.start(gliner([]));
    const extractor = new GlinerEntityExtractor({ url: server.url });
    expect(await extractor.extract(TEXT, context)).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('does not call the service for empty text', async () => {
    const server = await servers.start(gliner([]));
    expect(await new GlinerEntityExtractor({ url: server.url }).extract(' \n', context)).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('names the service, the document and the segment when the service is down', async () => {
    const url = await closedPortUrl();
    const error = await failure(new GlinerEntityExtractor({ url }).extract(TEXT, context));
    expect(error).toBeInstanceOf(EntityExtractionError);
    expect(error.message).toContain(`GLiNER service at ${url}/predict_entities did not answer: `);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain("source_doc_id 'uploads/curie.pdf', segment 'page_3'");
    expect((error as EntityExtractionError).status).toBe(502);
  });

  it('fails on a 5xx answer with its status and message', async () => {
    const server = await servers.start(() => ({ status: 503, json: { detail: 'model is loading' } }));
    const error = await failure(new GlinerEntityExtractor({ url: server.url }).extract(TEXT, context));
    expect(error).toBeInstanceOf(EntityExtractionError);
    expect(error.message).toContain('answered 503: {"detail":"model is loading"}');
  });

  it('fails on an answer that is not JSON', async () => {
    const server = await servers.start(() => ({ status: 200, text: '<html>proxy error</html>' }));
    const error = await failure(new GlinerEntityExtractor({ url: server.url }).extract(TEXT, context));
    expect(error.message).toContain('answered with something that is not JSON: <html>proxy error</html>');
  });

  it('fails on JSON out of contract', async () => {
    const server = await servers.start(() => ({ status: 200, json: { entities: [{ text: 'Paris' }] } }));
    const error = await failure(new GlinerEntityExtractor({ url: server.url }).extract(TEXT, context));
    expect(error.message).toContain('answered out of contract: entities.0.label');
  });

  it('gives up after its timeout', async () => {
    const server = await servers.start(() => 'hang');
    const error = await failure(
      new GlinerEntityExtractor({ url: server.url, timeoutMs: 200 }).extract(TEXT, context),
    );
    expect(error.message).toContain('did not answer within 200 ms');
  });
});
