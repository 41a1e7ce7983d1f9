/** What the entity and claim extractors answer, and the ports they implement. */
import { z } from 'zod';
import { ENTITY_LABELS, type EntityLabel, PREDICATES } from './vocabulary';

/** One entity span of the text given to `extract`: `text === input.slice(start, end)`. */
export const ExtractedEntity = z.object({
  text: z.string(),
  label: z.enum(ENTITY_LABELS),
  /** The model's confidence in [0, 1]; rule taggers, which have none, answer 1. */
  score: z.number().min(0).max(1),
  start: z.number().int().min(0),
  end: z.number().int().min(0),
});
export type ExtractedEntity = z.infer<typeof ExtractedEntity>;

/** A subject-predicate-object claim; `evidence_span` is a verbatim substring of the text given to `extract`. */
export const Claim = z.object({
  subject: z.string().min(1),
  predicate: z.enum(PREDICATES),
  object: z.string().min(1),
  evidence_span: z.string(),
  confidence: z.number().min(0).max(1),
});
export type Claim = z.infer<typeof Claim>;

/** Where the text comes from, for error messages. */
export interface ExtractionContext {
  sourceDocId: string;
  segmentId: string;
}

export interface PriorEntity {
  name: string;
  label: string;
}

export interface ClaimContext extends ExtractionContext {
  /** Entities of earlier segments of the same document and of this one, so pronouns resolve to them. */
  priorEntities: PriorEntity[];
}

export interface EntityExtractor {
  /** Honest name of the model behind it, e.g. `embedded:compromise`, `gliner:<url>`, `llm:<model>`. */
  readonly name: string;
  /** The labels it can answer. */
  readonly labels: readonly EntityLabel[];
  /** Entities of `text`; throws `EntityExtractionError` when the model fails. A text without entities gives []. */
  extract(text: string, context: ExtractionContext): Promise<ExtractedEntity[]>;
  /** Loads what the model needs ahead of the first text, when it runs in this process. */
  warm?(): void;
}

export interface ClaimExtractor {
  readonly name: string;
  /** Claims of `text` with predicates of the vocabulary; throws `ClaimExtractionError` when the model fails. */
  extract(text: string, context: ClaimContext): Promise<Claim[]>;
}
