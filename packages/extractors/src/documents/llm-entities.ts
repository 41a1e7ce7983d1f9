/** Entity extraction by an LLM behind an OpenAI-compatible endpoint, answering under a strict JSON schema. */
import { type JsonLlm, LlmCallError, type LlmEndpointOptions } from '@tessera/llm';
import { z } from 'zod';
import { jsonLlm } from './claims';
import { EntityExtractionError } from './errors';
import { filterEntities } from './filter';
import type { EntityExtractor, ExtractedEntity, ExtractionContext } from './types';
import { locate } from './verbatim';
import { ENTITY_LABELS, type EntityLabel } from './vocabulary';

export interface OpenAIEntityExtractorOptions {
  /** Labels asked for. Default all 15. */
  labels?: readonly EntityLabel[];
}

const Answer = z.object({
  entities: z.array(z.object({ text: z.string(), label: z.string(), score: z.number() }).loose()),
});

function schemaFor(labels: readonly EntityLabel[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      entities: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            text: { type: 'string', description: 'The entity exactly as written in the text' },
            label: { type: 'string', enum: [...labels] },
            score: { type: 'number', description: 'Confidence from 0 to 1' },
          },
          required: ['text', 'label', 'score'],
          additionalProperties: false,
        },
      },
    },
    required: ['entities'],
    additionalProperties: false,
  };
}

function systemPrompt(labels: readonly EntityLabel[]): string {
  return [
    'You find named entities in a text for a knowledge graph.',
    `Labels: ${labels.join(', ')}.`,
    'Copy each entity exactly as it is written in the text (same spelling and case); never invent one.',
    'Leave out pronouns, auxiliary verbs, adverbs and generic words.',
    'Give each entity once with its best label and a confidence from 0 to 1.',
    'Answer {"entities": []} when the text names none.',
  ].join('\n');
}

export class OpenAIEntityExtractor implements EntityExtractor {
  readonly name: string;
  readonly labels: readonly EntityLabel[];
  private readonly endpoint: JsonLlm;
  private readonly schema: Record<string, unknown>;
  private readonly system: string;

  /** An endpoint of fixed settings (with the labels to ask for), or the LLM client's calls for one tenant. */
  constructor(
    llm: (LlmEndpointOptions & OpenAIEntityExtractorOptions) | JsonLlm,
    options: OpenAIEntityExtractorOptions = {},
  ) {
    this.endpoint = jsonLlm(llm);
    this.name = this.endpoint.name;
    this.labels = options.labels ?? ('labels' in llm ? llm.labels : undefined) ?? ENTITY_LABELS;
    this.schema = schemaFor(this.labels);
    this.system = systemPrompt(this.labels);
  }

  async extract(text: string, context: ExtractionContext): Promise<ExtractedEntity[]> {
    if (text.trim() === '') return [];
    let answer: unknown;
    try {
      answer = await this.endpoint.json(this.system, `Text:\n"""\n${text}\n"""`, {
        name: 'entities',
        schema: this.schema,
      });
    } catch (error) {
      const reason = error instanceof LlmCallError ? error.message : String(error);
      throw new EntityExtractionError(this.name, context, reason, error);
    }
    const parsed = Answer.safeParse(answer);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new EntityExtractionError(
        this.name,
        context,
        `${this.endpoint.description} answered out of contract: ${issue.path.join('.') || 'body'}: ${issue.message}`,
      );
    }
    const asked = new Set<string>(this.labels);
    const entities: ExtractedEntity[] = [];
    for (const entity of parsed.data.entities) {
      if (!asked.has(entity.label)) continue;
      // A name the text does not hold is the model's invention, not an entity of the text.
      const at = locate(text, entity.text);
      if (!at) continue;
      entities.push({
        text: text.slice(at.start, at.end),
        label: entity.label as EntityLabel,
        score: Math.min(1, Math.max(0, entity.score)),
        ...at,
      });
    }
    return filterEntities(text, entities);
  }
}
