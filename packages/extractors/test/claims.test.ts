import {
  CLAIM_PART_CHARS,
  ClaimExtractionError,
  OpenAIClaimExtractor,
  PREDICATES,
  splitForClaims,
  verbatimEvidence,
} from '@tessera/extractors';
import { closedPortUrl, failure, useServers } from '@tessera/testing';
import { describe, expect, it } from 'vitest';
import { type ChatRequest, openAIChat, promptText, userMessage } from './servers';

const servers = useServers();
const context = { sourceDocId: 'talks/curie.mp4', segmentId: 'transcript_1', priorEntities: [] };

function claim(subject: string, predicate: string, object: string, evidence_span: string, confidence = 0.9) {
  return { subject, predicate, object, evidence_span, confidence };
}

function extractor(
  url: string,
  options: Partial<ConstructorParameters<typeof OpenAIClaimExtractor>[0]> = {},
) {
  return new OpenAIClaimExtractor({ baseURL: `${url}/v1`, model: 'llama-3.1-8b', ...options });
}

/** Sentences of about 100 characters, `count` of them, numbered so each part's claims can be told apart. */
function longText(paragraphs: number, sentencesPerParagraph: number): string {
  return Array.from({ length: paragraphs }, (_, p) =>
    Array.from(
      { length: sentencesPerParagraph },
      (_, s) => `Researcher ${p}x${s} worked at Institute ${p}x${s} for many years on problems of physics.`,
    ).join(' '),
  ).join('\n\n');
}

describe('splitForClaims', () => {
  it('keeps a text within the limit whole', () => {
    const text = 'a'.repeat(CLAIM_PART_CHARS);
    expect(splitForClaims(text)).toEqual([text]);
  });

  it('cuts at paragraph breaks into verbatim parts within the limit', () => {
    const text = longText(8, 10);
    expect(text.length).toBeGreaterThan(2 * CLAIM_PART_CHARS);
    const parts = splitForClaims(text);
    expect(parts.length).toBeGreaterThan(2);
    let from = 0;
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(CLAIM_PART_CHARS);
      const at = text.indexOf(part, from);
      expect(at).toBeGreaterThanOrEqual(from);
      from = at + part.length;
      // whole paragraphs only
      expect(part.startsWith('Researcher ')).toBe(true);
      expect(part.endsWith('physics.')).toBe(true);
      expect(
        text.slice(at + part.length, at + part.length + 2) === '\n\n' || at + part.length === text.length,
      ).toBe(true);
    }
    expect(parts.join('\n\n')).toBe(text);
  });

  it('falls back to sentence ends, then whitespace, then a hard cut', () => {
    const sentences = longText(1, 40);
    const bySentence = splitForClaims(sentences);
    expect(bySentence.length).toBeGreaterThan(1);
    for (const part of bySentence) {
      expect(part.length).toBeLessThanOrEqual(CLAIM_PART_CHARS);
      expect(part.endsWith('physics.')).toBe(true);
    }
    expect(bySentence.join(' ')).toBe(sentences);

    const words = 'word '.repeat(1000).trim();
    const byWord = splitForClaims(words);
    for (const part of byWord) {
      expect(part.length).toBeLessThanOrEqual(CLAIM_PART_CHARS);
      expect(part.startsWith('word') && part.endsWith('word')).toBe(true);
    }
    expect(byWord.join(' ')).toBe(words);

    const solid = 'x'.repeat(7000);
    expect(splitForClaims(solid).map((part) => part.length)).toEqual([3000, 3000, 1000]);
  });
});

describe('verbatimEvidence', () => {
  const text = 'Marie Curie won the Nobel Prize\nin Physics in 1903. She later won it again.';

  it('keeps evidence the text holds, forgiving re-flowed whitespace and case', () => {
    expect(verbatimEvidence(text, 'She later won it again.')).toBe('She later won it again.');
    expect(verbatimEvidence(text, 'won the Nobel Prize in physics')).toBe('won the Nobel Prize\nin Physics');
  });

  it("falls back to the text's first 200 characters otherwise", () => {
    expect(verbatimEvidence(text, 'Curie was awarded a prize')).toBe(text);
    expect(verbatimEvidence(text, '')).toBe(text);
    const long = `${'a'.repeat(250)} end`;
    expect(verbatimEvidence(long, 'missing')).toBe('a'.repeat(200));
  });
});

describe('OpenAIClaimExtractor (integration: loopback OpenAI-compatible server)', () => {
  it('asks with the 16 predicates under a strict json_schema and the endpoint record defaults', async () => {
    const server = await servers.start(openAIChat(() => ({ content: { claims: [] } })));
    expect(await extractor(server.url).extract('Marie Curie was born in Warsaw.', context)).toEqual([]);
    const request = server.requests[0]!.body as ChatRequest;
    expect(request.model).toBe('llama-3.1-8b');
    expect(request.temperature).toBe(0.1);
    expect(request.max_tokens).toBe(1000);
    expect(request.seed).toBeUndefined();
    expect(request.response_format!.json_schema!.name).toBe('claims');
    const items = (
      request.response_format!.json_schema!.schema as { properties: { claims: { items: unknown } } }
    ).properties.claims.items;
    expect(items).toMatchObject({
      properties: { predicate: { type: 'string', enum: [...PREDICATES] } },
      required: ['subject', 'predicate', 'object', 'evidence_span', 'confidence'],
      additionalProperties: false,
    });
    const system = request.messages.find((message) => message.role === 'system')!.content;
    for (const predicate of PREDICATES) expect(system).toContain(`- ${predicate}: `);
    expect(userMessage(request)).toContain('Known entities: none.');
    expect(promptText(request)).toBe('Marie Curie was born in Warsaw.');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('sends the API key, and the temperature, max_tokens and seed it is given', async () => {
    const server = await servers.start(openAIChat(() => ({ content: { claims: [] } })));
    await extractor(server.url, { apiKey: 'sk-test', temperature: 0.7, maxTokens: 64, seed: 7 }).extract(
      'Some text.',
      context,
    );
    const request = server.requests[0]!;
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.body).toMatchObject({ temperature: 0.7, max_tokens: 64, seed: 7 });
  });

  it('normalizes predicates, drops what is outside the vocabulary and keeps evidence verbatim', async () => {
    const text = 'Marie Curie was born in Warsaw. She discovered polonium with Pierre Curie.';
    const server = await servers.start(
      openAIChat(() => ({
        content: {
          claims: [
            claim('Marie Curie', 'Was Born In', 'Warsaw', 'Marie Curie was born in Warsaw.', 0.95),
            claim('Marie Curie', 'discovered', 'polonium', 'she discovered  polonium', 1.7),
            claim('Marie Curie', 'married', 'Pierre Curie', 'with Pierre Curie'),
            claim('Marie Curie', 'worked_at', 'Marie Curie', 'Marie Curie'),
            claim('', 'won', 'Nobel Prize', 'x'),
            { subject: 'Pierre Curie', predicate: 'discovered' },
            claim('Pierre Curie', 'is-part-of', 'the team', 'Pierre and Marie worked as one team', -0.2),
          ],
        },
      })),
    );
    const claims = await extractor(server.url).extract(text, context);
    expect(claims).toEqual([
      claim('Marie Curie', 'born_in', 'Warsaw', 'Marie Curie was born in Warsaw.', 0.95),
      claim('Marie Curie', 'discovered', 'polonium', 'She discovered polonium', 1),
      claim('Pierre Curie', 'part_of', 'the team', text, 0),
    ]);
  });

  it('resolves pronouns against the prior entities it lists in the prompt', async () => {
    const server = await servers.start(
      openAIChat((request) => {
        const prompt = userMessage(request);
        // the fake model can only resolve "She" when the prompt names her
        expect(prompt).toContain('- Marie Curie (Person)');
        expect(prompt).toContain('- Sorbonne (Organization)');
        expect(promptText(request)).toBe('She won the Nobel Prize in 1911.');
        return {
          content: {
            claims: [claim('Marie Curie', 'won', 'Nobel Prize', 'She won the Nobel Prize in 1911.', 0.9)],
          },
        };
      }),
    );
    const claims = await extractor(server.url).extract('She won the Nobel Prize in 1911.', {
      ...context,
      priorEntities: [
        { name: 'Marie Curie', label: 'Person' },
        { name: 'Sorbonne', label: 'Organization' },
        { name: 'marie curie', label: 'Person' },
      ],
    });
    expect(claims).toEqual([
      claim('Marie Curie', 'won', 'Nobel Prize', 'She won the Nobel Prize in 1911.', 0.9),
    ]);
  });

  it('drops a claim whose subject or object the model left a pronoun', async () => {
    const text = 'She discovered polonium in Paris. It is part of a series. Marie Curie won it.';
    const server = await servers.start(
      openAIChat(() => ({
        content: {
          claims: [
            claim('She', 'discovered', 'polonium', 'She discovered polonium in Paris.', 0.9),
            claim('polonium', 'part_of', 'a series', 'It is part of a series.', 0.8),
            claim('It', 'part_of', 'a series', 'It is part of a series.', 0.8),
            claim('Marie Curie', 'won', 'it', 'Marie Curie won it.', 0.7),
            claim('they themselves', 'located_at', 'Paris', text, 0.5),
          ],
        },
      })),
    );
    const claims = await extractor(server.url).extract(text, context);
    expect(claims).toEqual([claim('polonium', 'part_of', 'a series', 'It is part of a series.', 0.8)]);
  });

  it('lists at most the 200 most recent prior entities, a repeated one at its latest place', async () => {
    const server = await servers.start(openAIChat(() => ({ content: { claims: [] } })));
    const priorEntities = Array.from({ length: 250 }, (_, i) => ({ name: `Entity ${i}`, label: 'Concept' }));
    priorEntities.push({ name: 'ENTITY 0', label: 'Concept' });
    await extractor(server.url).extract('It happened.', { ...context, priorEntities });
    const listed = userMessage(server.requests[0]!.body as ChatRequest)
      .split('\n')
      .filter((line) => line.startsWith('- '));
    expect(listed).toHaveLength(200);
    expect(listed[0]).toBe('- Entity 51 (Concept)');
    expect(listed.at(-2)).toBe('- Entity 249 (Concept)');
    expect(listed.at(-1)).toBe('- Entity 0 (Concept)');
  });

  it('takes the heavier path over 3,000 characters: one call per part, claims merged and deduplicated', async () => {
    const text = longText(5, 9);
    expect(text.length).toBeGreaterThan(CLAIM_PART_CHARS);
    const server = await servers.start(
      openAIChat((request) => {
        const part = promptText(request);
        expect(part.length).toBeLessThanOrEqual(CLAIM_PART_CHARS);
        const first = /Researcher (\d+x\d+)/.exec(part)![1]!;
        return {
          content: {
            claims: [
              claim(
                `Researcher ${first}`,
                'worked_at',
                `Institute ${first}`,
                `Researcher ${first} worked at`,
              ),
              // every part repeats one claim: it is kept once, with the best confidence
              claim(
                'Researcher 0x0',
                'worked at',
                'Institute 0x0',
                'Researcher 0x0',
                part.includes('1x0') ? 0.99 : 0.5,
              ),
            ],
          },
        };
      }),
    );
    const claims = await extractor(server.url).extract(text, context);
    const parts = splitForClaims(text);
    expect(parts.length).toBeGreaterThan(1);
    expect(server.requests).toHaveLength(parts.length);
    expect(server.requests.map((request) => promptText(request.body as ChatRequest))).toEqual(parts);
    expect(claims.filter((c) => c.subject === 'Researcher 0x0')).toEqual([
      claim('Researcher 0x0', 'worked_at', 'Institute 0x0', 'Researcher 0x0', 0.99),
    ]);
    expect(claims).toHaveLength(parts.length);
  });

  it('answers no claim for empty text without calling the endpoint', async () => {
    const server = await servers.start(openAIChat(() => ({ content: { claims: [] } })));
    expect(await extractor(server.url).extract('  \n', context)).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('names the endpoint, the document and the segment when the endpoint is down', async () => {
    const url = await closedPortUrl();
    const error = await failure(extractor(url).extract('Marie Curie was born in Warsaw.', context));
    expect(error).toBeInstanceOf(ClaimExtractionError);
    expect(error.message).toContain(`LLM endpoint at ${url}/v1 (model llama-3.1-8b) did not answer: `);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain("source_doc_id 'talks/curie.mp4', segment 'transcript_1'");
  });

  it('fails on a 5xx answer after its one attempt, and retries when given more attempts', async () => {
    const failing = await servers.start(() => ({
      status: 500,
      json: { error: { message: 'GPU fell over' } },
    }));
    const error = await failure(extractor(failing.url).extract('Some text.', context));
    expect(error).toBeInstanceOf(ClaimExtractionError);
    expect(error.message).toContain('answered 500: 500 GPU fell over (1 attempt)');
    expect(failing.requests).toHaveLength(1);

    const flaky = await servers.start(
      openAIChat((_request, _seen, count) =>
        count === 1
          ? { status: 503, json: { error: { message: 'busy' } } }
          : { content: { claims: [claim('Ada', 'wrote', 'Notes', 'Ada wrote Notes')] } },
      ),
    );
    const claims = await extractor(flaky.url, { numRetries: 2 }).extract('Ada wrote Notes.', context);
    expect(flaky.requests).toHaveLength(2);
    expect(claims).toEqual([claim('Ada', 'wrote', 'Notes', 'Ada wrote Notes')]);
  });

  it('fails on an answer that is not JSON, saying when max_tokens cut it', async () => {
    const server = await servers.start(
      openAIChat((_request, _seen, count) =>
        count === 1
          ? { content: 'Sure! Here are the claims: ...' }
          : { content: '{"claims": [{"subject": "Ada", "pred', finish_reason: 'length' },
      ),
    );
    const plain = await failure(extractor(server.url).extract('Ada wrote Notes.', context));
    expect(plain).toBeInstanceOf(ClaimExtractionError);
    expect(plain.message).toContain(
      'answered with something that is not JSON: Sure! Here are the claims: ...',
    );
    const cut = await failure(extractor(server.url).extract('Ada wrote Notes.', context));
    expect(cut.message).toContain('not JSON (cut at max_tokens 1000)');
  });

  it('fails on JSON out of contract, naming the part on the heavier path', async () => {
    const server = await servers.start(openAIChat(() => ({ content: { triples: [] } })));
    const error = await failure(extractor(server.url).extract(longText(5, 9), context));
    expect(error.message).toContain('answered out of contract (part 1 of ');
    expect(error.message).toContain('claims: ');
  });

  it('gives up after its request timeout', async () => {
    const server = await servers.start(() => 'hang');
    const error = await failure(
      extractor(server.url, { requestTimeout: 0.2 }).extract('Some text.', context),
    );
    expect(error.message).toContain('did not answer within 0.2 s (1 attempt)');
  });

  it('is refused by a server that enforces structured output when the format is missing (the fake checks it)', async () => {
    const server = await servers.start(openAIChat(() => ({ content: { claims: [] } })));
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [] }),
    });
    expect(response.status).toBe(400);
  });
});
