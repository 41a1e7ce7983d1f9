import { ENTITY_LABELS, EntityExtractionError, OpenAIEntityExtractor } from '@tessera/extractors';
import { closedPortUrl, failure, useServers } from '@tessera/testing';
import { describe, expect, it } from 'vitest';
import { openAIChat, promptText } from './servers';

const servers = useServers();
const context = { sourceDocId: 'notes.md', segmentId: 'document' };
const TEXT = 'Grace Hopper wrote the first COBOL compiler\nat Remington Rand.';

describe('OpenAIEntityExtractor (integration: loopback OpenAI-compatible server)', () => {
  it('asks under a strict json_schema with the label enum and locates each entity in the text', async () => {
    const server = await servers.start(
      openAIChat((request) => {
        expect(promptText(request)).toBe(TEXT);
        return {
          content: {
            entities: [
              { text: 'Grace Hopper', label: 'Person', score: 0.97 },
              { text: 'cobol', label: 'Language', score: 0.9 },
              { text: 'Remington  Rand', label: 'Organization', score: 1.4 },
              { text: 'Alan Turing', label: 'Person', score: 0.9 },
              { text: 'compiler', label: 'Gadget', score: 0.9 },
              { text: 'she', label: 'Person', score: 0.9 },
            ],
          },
        };
      }),
    );
    const extractor = new OpenAIEntityExtractor({ baseURL: `${server.url}/v1`, model: 'qwen2.5-7b' });
    expect(extractor.name).toBe('llm:qwen2.5-7b');
    const entities = await extractor.extract(TEXT, context);
    expect(entities).toEqual([
      { text: 'Grace Hopper', label: 'Person', score: 0.97, start: 0, end: 12 },
      { text: 'COBOL', label: 'Language', score: 0.9, start: 29, end: 34 },
      { text: 'Remington Rand', label: 'Organization', score: 1, start: 47, end: 61 },
    ]);
    const request = server.requests[0]!.body as {
      model: string;
      temperature: number;
      max_tokens: number;
      response_format: { json_schema: { schema: { properties: { entities: { items: unknown } } } } };
    };
    expect(request.model).toBe('qwen2.5-7b');
    expect(request.temperature).toBe(0.1);
    expect(request.max_tokens).toBe(1000);
    expect(request.response_format.json_schema.schema.properties.entities.items).toMatchObject({
      properties: { label: { type: 'string', enum: [...ENTITY_LABELS] } },
      required: ['text', 'label', 'score'],
      additionalProperties: false,
    });
  });

  it('keeps an empty prediction empty', async () => {
    const server = await servers.start(openAIChat(() => ({ content: { entities: [] } })));
    const extractor = new OpenAIEntityExtractor({ baseURL: `${server.url}/v1`, model: 'm' });
    expect(await extractor.extract(TEXT, context)).toEqual([]);
  });

  it('names the endpoint, the document and the segment when the endpoint is down', async () => {
    const url = await closedPortUrl();
    const extractor = new OpenAIEntityExtractor({ baseURL: `${url}/v1`, model: 'm' });
    const error = await failure(extractor.extract(TEXT, context));
    expect(error).toBeInstanceOf(EntityExtractionError);
    expect(error.message).toContain(`LLM endpoint at ${url}/v1 (model m) did not answer`);
    expect(error.message).toContain("source_doc_id 'notes.md', segment 'document'");
  });

  it('fails on an answer out of contract', async () => {
    const server = await servers.start(openAIChat(() => ({ content: { names: ['Grace Hopper'] } })));
    const extractor = new OpenAIEntityExtractor({ baseURL: `${server.url}/v1`, model: 'm' });
    const error = await failure(extractor.extract(TEXT, context));
    expect(error.message).toContain('answered out of contract: entities');
  });
});
