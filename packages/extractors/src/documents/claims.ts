/**
 * Claim extraction by an LLM behind an OpenAI-compatible endpoint: subject-predicate-object triples over the
 * 16-predicate vocabulary, pronouns resolved against the document's earlier entities, evidence kept verbatim.
 * Inputs over 3,000 characters take the heavier path: split on paragraph or sentence boundaries into parts of at
 * most 3,000 characters, one call per part, claims merged.
 */
import { normalizeNodeId } from '@tessera/graph/ids';
import { type JsonLlm, LlmCallError, LlmEndpoint, type LlmEndpointOptions } from '@tessera/llm';
import { z } from 'zod';
import { cutInto } from '../chunking/text';
import { ClaimExtractionError } from './errors';
import { onlyFunctionWords } from './filter';
import type { Claim, ClaimContext, ClaimExtractor, PriorEntity } from './types';
import { locate } from './verbatim';
import { normalizePredicate, PREDICATES, type Predicate } from './vocabulary';

/** Inputs longer than this take the heavier path. */
export const CLAIM_PART_CHARS = 3000;
/** Evidence that is not in the text falls back to the text's first this many characters. */
export const EVIDENCE_FALLBACK_CHARS = 200;
/** The prompt lists at most this many prior entities, the most recent ones. */
export const PRIOR_ENTITY_LIMIT = 200;

const MEANINGS: Record<Predicate, string> = {
  born_in: 'a person was born in a place (or year)',
  discovered: 'someone discovered something',
  discovered_in: 'something was discovered in a place or year',
  located_at: 'something is located at or in a place',
  won: 'someone won an award, prize or contest',
  worked_at: 'someone worked at an organization or place',
  wrote: 'someone wrote a work',
  invented: 'someone invented something',
  studied: 'someone studied a subject or at an institution',
  contains: 'something contains something else',
  occurred_at: 'an event occurred at a place or time',
  part_of: 'something is part of something larger',
  preceded_by: 'something came after the object (the object came first)',
  followed_by: 'something came before the object (the object came next)',
  caused_by: 'something was caused by the object',
  contradicts: 'a statement or finding contradicts another',
};

const SYSTEM = [
  'You extract factual claims from a text as subject-predicate-object triples for a knowledge graph.',
  'Use only these predicates:',
  ...PREDICATES.map((predicate) => `- ${predicate}: ${MEANINGS[predicate]}`),
  'Rules:',
  '- subject and object are short names of entities (people, places, organizations, works, things), never pronouns.',
  '- Resolve pronouns and references ("she", "the company", "it") to the known entities the user lists when they fit; use the entity name as written there.',
  '- evidence_span is copied word for word from the text: the sentence or clause that states the claim.',
  '- confidence is a number from 0 to 1.',
  '- Only claims the text states. Answer {"claims": []} when there are none.',
].join('\n');

const SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    claims: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          subject: { type: 'string' },
          predicate: { type: 'string', enum: [...PREDICATES] },
          object: { type: 'string' },
          evidence_span: { type: 'string' },
          confidence: { type: 'number' },
        },
        required: ['subject', 'predicate', 'object', 'evidence_span', 'confidence'],
        additionalProperties: false,
      },
    },
  },
  required: ['claims'],
  additionalProperties: false,
};

const Answer = z.object({ claims: z.array(z.unknown()) });
/** One item; an item out of shape is dropped on its own, not the whole answer. */
const Item = z.object({
  subject: z.string(),
  predicate: z.string(),
  object: z.string(),
  evidence_span: z.string().optional(),
  confidence: z.number(),
});

/** The model's evidence when `text` holds it (re-flowed whitespace and case forgiven), else the text's first 200 characters. */
export function verbatimEvidence(text: string, evidence: string | undefined): string {
  const at = evidence === undefined ? undefined : locate(text, evidence);
  return at ? text.slice(at.start, at.end) : (cutInto(text.trim(), EVIDENCE_FALLBACK_CHARS)[0] ?? '');
}

/** Where the part ends at the last boundary matching `pattern` between the middle of the window and `max`. */
function lastBoundary(
  window: string,
  max: number,
  pattern: RegExp,
  endOf: (match: RegExpExecArray) => number,
): number {
  let best = -1;
  for (const match of window.matchAll(pattern)) {
    const end = endOf(match);
    if (end >= max / 2 && end <= max) best = end;
  }
  return best;
}

/**
 * `text` in parts of at most `max` characters, each a verbatim substring: cut at the last paragraph break in the
 * second half of the window, else the last sentence end, else the last whitespace, else at `max`.
 */
export function splitForClaims(text: string, max = CLAIM_PART_CHARS): string[] {
  const parts: string[] = [];
  let position = 0;
  while (position < text.length) {
    while (position < text.length && /\s/.test(text[position]!)) position++;
    if (position >= text.length) break;
    if (text.length - position <= max) {
      parts.push(text.slice(position).trimEnd());
      break;
    }
    const window = text.slice(position, position + max + 1);
    let cut = lastBoundary(window, max, /\n[^\S\n]*\n/g, (match) => match.index);
    if (cut <= 0) {
      cut = lastBoundary(window, max, /[.!?…]["'”’)\]]*(?=\s)/g, (match) => match.index + match[0].length);
    }
    if (cut <= 0) cut = lastBoundary(window, max, /\s/g, (match) => match.index);
    if (cut <= 0) cut = cutInto(window, max)[0]!.length;
    parts.push(text.slice(position, position + cut).trimEnd());
    position += cut;
  }
  return parts;
}

function priorList(prior: PriorEntity[]): string {
  const seen = new Map<string, PriorEntity>();
  for (const entity of prior) {
    const id = normalizeNodeId(entity.name);
    if (id === '') continue;
    // A repeated entity keeps its first name and moves to the most recent place.
    const first = seen.get(id) ?? entity;
    seen.delete(id);
    seen.set(id, first);
  }
  const recent = [...seen.values()].slice(-PRIOR_ENTITY_LIMIT);
  if (recent.length === 0) return 'Known entities: none.';
  return [
    'Known entities of this document (earlier segments and this one):',
    ...recent.map((e) => `- ${e.name} (${e.label})`),
  ].join('\n');
}

/** An endpoint of fixed settings, or the LLM client's calls for one tenant. */
export const jsonLlm = (llm: LlmEndpointOptions | JsonLlm): JsonLlm =>
  'json' in llm ? llm : new LlmEndpoint(llm);

export class OpenAIClaimExtractor implements ClaimExtractor {
  readonly name: string;
  private readonly endpoint: JsonLlm;

  constructor(llm: LlmEndpointOptions | JsonLlm) {
    this.endpoint = jsonLlm(llm);
    this.name = this.endpoint.name;
  }

  async extract(text: string, context: ClaimContext): Promise<Claim[]> {
    if (text.trim() === '') return [];
    const parts = text.length > CLAIM_PART_CHARS ? splitForClaims(text) : [text];
    const known = priorList(context.priorEntities);
    const merged = new Map<string, Claim>();
    for (const [index, part] of parts.entries()) {
      const where = parts.length > 1 ? ` (part ${index + 1} of ${parts.length})` : '';
      for (const claim of await this.extractPart(part, known, context, where)) {
        const key = `${normalizeNodeId(claim.subject)}|${claim.predicate}|${normalizeNodeId(claim.object)}`;
        const kept = merged.get(key);
        if (!kept || claim.confidence > kept.confidence) merged.set(key, claim);
      }
    }
    return [...merged.values()];
  }

  private async extractPart(
    part: string,
    known: string,
    context: ClaimContext,
    where: string,
  ): Promise<Claim[]> {
    let answer: unknown;
    try {
      answer = await this.endpoint.json(SYSTEM, `${known}\n\nText:\n"""\n${part}\n"""`, {
        name: 'claims',
        schema: SCHEMA,
      });
    } catch (error) {
      const reason = error instanceof LlmCallError ? error.message : String(error);
      throw new ClaimExtractionError(this.name, context, `${reason}${where}`, error);
    }
    const parsed = Answer.safeParse(answer);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ClaimExtractionError(
        this.name,
        context,
        `${this.endpoint.description} answered out of contract${where}: ${issue.path.join('.') || 'body'}: ${issue.message}`,
      );
    }
    const claims: Claim[] = [];
    for (const raw of parsed.data.claims) {
      const item = Item.safeParse(raw);
      if (!item.success) continue;
      const predicate = normalizePredicate(item.data.predicate);
      const subject = item.data.subject.trim();
      const object = item.data.object.trim();
      if (!predicate) continue;
      const subjectId = normalizeNodeId(subject);
      const objectId = normalizeNodeId(object);
      if (subjectId === '' || objectId === '' || subjectId === objectId) continue;
      // A pronoun the model left unresolved ("She discovered polonium") names no entity: no node for it.
      if (onlyFunctionWords(subject) || onlyFunctionWords(object)) continue;
      const confidence = Number.isFinite(item.data.confidence)
        ? Math.min(1, Math.max(0, item.data.confidence))
        : 0;
      claims.push({
        subject,
        predicate,
        object,
        evidence_span: verbatimEvidence(part, item.data.evidence_span),
        confidence,
      });
    }
    return claims;
  }
}
