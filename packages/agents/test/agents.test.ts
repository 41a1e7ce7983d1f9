/** The agents that need no model: gateway classification and routing, modality, text analysis helpers. */
import { Config } from '@tessera/api';
import { describe, expect, it } from 'vitest';
import {
  classify,
  detectLanguage,
  executionAgent,
  extractiveSummary,
  guessModality,
  keywords,
  route,
  sentences,
  words,
} from '../src/index';

const routing = Config.RoutingConfig.parse({});

describe('classify', () => {
  it('calls a short lookup simple and a multi-part comparison complex', () => {
    expect(classify('find the invoice policy', 0)).toMatchObject({ classification: 'simple' });
    const complex = classify(
      'Compare the pricing strategies of Acme and Globex over time and explain why they changed',
      2,
    );
    expect(complex.classification).toBe('complex');
    expect(complex.reasons.join(' ')).toMatch(/comparison.*temporal/);
    expect(complex.confidence).toBeGreaterThanOrEqual(0.6);
  });
});

describe('route', () => {
  it('sends a confident simple query to its execution agent and a complex one to the orchestrator', () => {
    const simple = classify('show me photos of the launch', 0);
    expect(route('show me photos of the launch', simple, routing).routed_to).toBe('image_search_agent');
    const complex = classify(
      'analyze the impact of the merger and compare it with the trends of last year',
      1,
    );
    expect(route('q', complex, routing).routed_to).toBe('orchestrator_agent');
  });

  it('follows the thresholds and switches of the routing record', () => {
    const simple = classify('the tenant schema of the archive', 0);
    expect(simple.confidence).toBe(0.8);
    expect(route('the tenant schema of the archive', simple, routing).routed_to).toBe('search_agent');
    const strict = Config.RoutingConfig.parse({ fast_path_confidence_threshold: 0.9 });
    expect(route('q', simple, strict)).toMatchObject({
      routed_to: 'orchestrator_agent',
      reason: /slow path: simple at/,
    });
    const noSlow = Config.RoutingConfig.parse({
      fast_path_confidence_threshold: 0.9,
      enable_slow_path: false,
    });
    expect(route('q', simple, noSlow).routed_to).toBe('search_agent');
    const noFast = Config.RoutingConfig.parse({ enable_fast_path: false });
    expect(route('q', simple, noFast).routed_to).toBe('orchestrator_agent');
  });
});

describe('executionAgent', () => {
  it('picks the agent of the intent, then of the modality', () => {
    expect(executionAgent('summarize the onboarding guide')).toBe('summarizer_agent');
    expect(executionAgent('write a function that parses dates')).toBe('coding_agent');
    expect(executionAgent('play the podcast about rust')).toBe('audio_analysis_agent');
    expect(executionAgent('which pdf mentions the refund')).toBe('document_agent');
    expect(executionAgent('the quarterly numbers')).toBe('search_agent');
  });
});

describe('guessModality', () => {
  it('names the modality the query names, with more confidence for more words', () => {
    expect(guessModality('video clips of the keynote scenes')).toMatchObject({ modality: 'video' });
    expect(guessModality('where is parseConfig() defined in config.ts')).toMatchObject({ modality: 'code' });
    expect(guessModality('holiday rules')).toMatchObject({ modality: 'document', confidence: 0.4 });
    expect(guessModality('video clips of the keynote scenes').confidence).toBeGreaterThan(
      guessModality('a video').confidence,
    );
  });
});

describe('text helpers', () => {
  it('detects the language by stop words and leaves a short text undetermined', () => {
    expect(detectLanguage(words('The cat is on the mat and it is happy with the food'))).toBe('en');
    expect(detectLanguage(words('Der Hund ist im Garten und die Katze ist auf dem Dach'))).toBe('de');
    expect(detectLanguage(words('Le chat est dans la maison et le chien est dans le jardin'))).toBe('fr');
    expect(detectLanguage(words('Tessera'))).toBe('und');
  });

  it('splits sentences and ranks keywords by frequency', () => {
    expect(sentences('One. Two! Three?\nFour')).toEqual(['One.', 'Two!', 'Three?', 'Four']);
    expect(keywords(words('tenant schema tenant index the tenant schema'))).toEqual([
      'tenant',
      'schema',
      'index',
    ]);
  });

  it('summarizes with the sentences of the passages that cover the query, verbatim and in order', () => {
    const { summary, sources } = extractiveSummary(
      'refund policy',
      [
        { id: 'a', text: 'The office opens at nine. Refunds follow the refund policy of 2024.' },
        { id: 'b', text: 'The policy allows a refund within 14 days. Parking is free.' },
      ],
      2,
    );
    expect(summary).toBe(
      'Refunds follow the refund policy of 2024. The policy allows a refund within 14 days.',
    );
    expect(sources).toEqual(['a', 'b']);
  });

  it("summarizes with a document's sentences, not its title or Markdown heading lines", () => {
    // A hit's full text is its title field, then its Markdown text (the search agent's `texts`).
    const text =
      'Marie Curie\n# Marie Curie\n\nMarie Curie was born in Warsaw in 1867.\n\nShe discovered polonium.';
    expect(extractiveSummary('Where was Marie Curie born?', [{ id: 'bio1.md:0', text }], 2).summary).toBe(
      'Marie Curie was born in Warsaw in 1867. She discovered polonium.',
    );
    // Text without one finished sentence is still summarized from its lines.
    expect(
      extractiveSummary('curie', [{ id: 'n', text: '# Notes\n\n- Marie Curie\n- Pierre Curie' }], 2).summary,
    ).toBe('- Marie Curie - Pierre Curie');
  });
});
