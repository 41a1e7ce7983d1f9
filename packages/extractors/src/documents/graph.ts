/**
 * The server-side extraction flow of one document: pass 1 finds the entities of every segment (text cut into
 * ~2,000-character chunks), pass 2 extracts claims per segment with the entity pool of the segments up to it,
 * so pronouns resolve to earlier entities. Answers graph nodes and edges in the fields of the graph's upsert,
 * plus each segment's back-references. Extractor errors propagate: the caller decides to carry on without graph.
 */
import { BadRequestError, mapBounded } from '@tessera/core';
import { edgeId, normalizeNodeId } from '@tessera/graph/ids';
import type { Mention } from '@tessera/graph/model';
import { z } from 'zod';
import { chunkText } from '../chunking/text';
import { ClaimExtractionError, EntityExtractionError } from './errors';
import type {
  Claim,
  ClaimExtractor,
  EntityExtractor,
  ExtractedEntity,
  ExtractionContext,
  PriorEntity,
} from './types';
import type { Predicate } from './vocabulary';

export const DocumentSegment = z.object({
  segment_id: z.string().min(1).max(1000),
  text: z.string(),
  ts_start: z.number().finite().min(0),
  ts_end: z.number().finite().min(0),
  modality: z.string().min(1).max(50),
});
export type DocumentSegment = z.infer<typeof DocumentSegment>;

export const DEFAULT_CONCURRENCY = 4;
/** The graph's limits on a node name and on the mentions of one node in one upsert. */
const MAX_NAME_CHARS = 1000;
const MAX_MENTIONS = 1000;

export interface ExtractDocumentGraphInput {
  sourceDocId: string;
  segments: DocumentSegment[];
  entities: EntityExtractor;
  /** Without one, claims are skipped (and the answer says so). */
  claims?: ClaimExtractor;
  /** Segments extracted at once in each pass. Default 4. */
  concurrency?: number;
}

/** A node in the fields of the graph's `NodeInput`. */
export interface DocumentNode {
  name: string;
  description: string;
  kind: 'concept';
  label: string;
  mentions: Mention[];
}

/** An edge in the fields of the graph's `EdgeInput`; `source` and `target` are node names. */
export interface DocumentEdge {
  source: string;
  target: string;
  relation: Predicate;
  evidence_span: string;
  segment_id: string;
  ts_start: number;
  ts_end: number;
  modality: string;
  provenance: 'INFERRED';
  source_doc_id: string;
  confidence: number;
}

export interface SegmentReferences {
  /** Ids of the nodes found in the segment: its entities, then the claim endpoints not among them. */
  entity_ids: string[];
  /** Ids of the edges from the segment. */
  relation_ids: string[];
  /** Ids of the claim edges from the segment (all edges of this flow are claims). */
  claim_ids: string[];
}

export interface DocumentGraph {
  nodes: DocumentNode[];
  edges: DocumentEdge[];
  segments: Record<string, SegmentReferences>;
  claims: 'extracted' | `skipped: ${string}`;
}

export const CLAIMS_SKIPPED =
  'skipped: no claim extractor configured (set TESSERA_LLM_BASE_URL and TESSERA_LLM_MODEL)' as const;

function validated(input: ExtractDocumentGraphInput): { segments: DocumentSegment[]; concurrency: number } {
  const segments = z.array(DocumentSegment).safeParse(input.segments);
  if (!segments.success) {
    const issue = segments.error.issues[0]!;
    throw new BadRequestError(`Invalid segments: ${issue.path.join('.')}: ${issue.message}`);
  }
  const ids = new Set<string>();
  for (const segment of segments.data) {
    if (ids.has(segment.segment_id)) {
      throw new BadRequestError(`Invalid segments: segment_id '${segment.segment_id}' appears twice`);
    }
    ids.add(segment.segment_id);
  }
  const concurrency = input.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new BadRequestError(`Invalid concurrency ${concurrency}: a positive integer is required`);
  }
  return { segments: segments.data, concurrency };
}

async function segmentEntities(
  extractor: EntityExtractor,
  segment: DocumentSegment,
  context: ExtractionContext,
): Promise<ExtractedEntity[]> {
  const chunks = chunkText(segment.text);
  const found: ExtractedEntity[] = [];
  for (const [index, chunk] of chunks.entries()) {
    try {
      found.push(...(await extractor.extract(chunk, context)));
    } catch (error) {
      const where = chunks.length > 1 ? `chunk ${index + 1} of ${chunks.length}: ` : '';
      if (error instanceof EntityExtractionError && where === '') throw error;
      const reason = error instanceof EntityExtractionError ? error.reason : String(error);
      throw new EntityExtractionError(extractor.name, context, `${where}${reason}`, error);
    }
  }
  return found;
}

async function segmentClaims(
  extractor: ClaimExtractor,
  segment: DocumentSegment,
  context: ExtractionContext,
  priorEntities: PriorEntity[],
): Promise<Claim[]> {
  try {
    return await extractor.extract(segment.text, { ...context, priorEntities });
  } catch (error) {
    if (error instanceof ClaimExtractionError) throw error;
    throw new ClaimExtractionError(extractor.name, context, String(error), error);
  }
}

/** Nodes merged by node id, with one mention per (document, segment, times, modality). */
class NodePool {
  readonly nodes = new Map<string, DocumentNode>();

  add(name: string, label: string, description: string): string | undefined {
    const id = normalizeNodeId(name);
    if (id === '' || name.length > MAX_NAME_CHARS) return undefined;
    if (!this.nodes.has(id)) this.nodes.set(id, { name, description, kind: 'concept', label, mentions: [] });
    return id;
  }

  mention(id: string, mention: Mention): void {
    const node = this.nodes.get(id)!;
    const known = node.mentions.some(
      (m) =>
        m.source_doc_id === mention.source_doc_id &&
        m.segment_id === mention.segment_id &&
        m.ts_start === mention.ts_start &&
        m.ts_end === mention.ts_end &&
        m.modality === mention.modality,
    );
    if (!known && node.mentions.length < MAX_MENTIONS) node.mentions.push(mention);
  }
}

function mentionOf(sourceDocId: string, segment: DocumentSegment, evidence: string): Mention {
  return {
    source_doc_id: sourceDocId,
    segment_id: segment.segment_id,
    ts_start: segment.ts_start,
    ts_end: segment.ts_end,
    modality: segment.modality,
    evidence_span: evidence,
  };
}

function pushNew(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

/** Nodes, claim edges and per-segment back-references of one document's segments. */
export async function extractDocumentGraph(input: ExtractDocumentGraphInput): Promise<DocumentGraph> {
  const { sourceDocId } = input;
  const { segments, concurrency } = validated(input);
  const contextOf = (segment: DocumentSegment): ExtractionContext => ({
    sourceDocId,
    segmentId: segment.segment_id,
  });

  // Pass 1: entities, merged into nodes in segment order whatever order the segments finished in.
  const found = await mapBounded(segments, concurrency, (segment) =>
    segmentEntities(input.entities, segment, contextOf(segment)),
  );
  const pool = new NodePool();
  const references = segments.map(
    (): SegmentReferences => ({ entity_ids: [], relation_ids: [], claim_ids: [] }),
  );
  const priorPool: PriorEntity[] = [];
  const priorEnd: number[] = [];
  segments.forEach((segment, index) => {
    for (const entity of found[index]!) {
      const id = pool.add(entity.text, entity.label, `${entity.label} mentioned in ${sourceDocId}`);
      if (id === undefined) continue;
      pool.mention(id, mentionOf(sourceDocId, segment, entity.text));
      if (!references[index]!.entity_ids.includes(id)) {
        references[index]!.entity_ids.push(id);
        const node = pool.nodes.get(id)!;
        priorPool.push({ name: node.name, label: node.label });
      }
    }
    priorEnd.push(priorPool.length);
  });

  // Pass 2: claims, each segment with the entity pool of the segments up to and including it.
  const edges = new Map<string, DocumentEdge>();
  if (input.claims) {
    const extractor = input.claims;
    const claims = await mapBounded(segments, concurrency, (segment, index) =>
      segment.text.trim() === ''
        ? Promise.resolve([])
        : segmentClaims(extractor, segment, contextOf(segment), priorPool.slice(0, priorEnd[index])),
    );
    segments.forEach((segment, index) => {
      const refs = references[index]!;
      for (const claim of claims[index]!) {
        const source = pool.add(claim.subject, 'Concept', '');
        const target = pool.add(claim.object, 'Concept', '');
        if (source === undefined || target === undefined || source === target) continue;
        const mention = mentionOf(sourceDocId, segment, claim.evidence_span);
        pool.mention(source, mention);
        pool.mention(target, mention);
        pushNew(refs.entity_ids, source);
        pushNew(refs.entity_ids, target);
        const id = edgeId(
          source,
          claim.predicate,
          target,
          segment.segment_id,
          segment.ts_start,
          segment.ts_end,
        );
        const existing = edges.get(id);
        if (!existing || claim.confidence > existing.confidence) {
          edges.set(id, {
            source: pool.nodes.get(source)!.name,
            target: pool.nodes.get(target)!.name,
            relation: claim.predicate,
            evidence_span: claim.evidence_span,
            segment_id: segment.segment_id,
            ts_start: segment.ts_start,
            ts_end: segment.ts_end,
            modality: segment.modality,
            provenance: 'INFERRED',
            source_doc_id: sourceDocId,
            confidence: claim.confidence,
          });
        }
        pushNew(refs.relation_ids, id);
        pushNew(refs.claim_ids, id);
      }
    });
  }

  return {
    nodes: [...pool.nodes.values()],
    edges: [...edges.values()],
    segments: Object.fromEntries(segments.map((segment, index) => [segment.segment_id, references[index]!])),
    claims: input.claims ? 'extracted' : CLAIMS_SKIPPED,
  };
}
