/**
 * Cross-modal linking of one source document (document 1, step 5): after every segment's entities are known,
 * `same_as` edges join what the transcript names with what captions and on-screen text show, by three
 * structural rules and no text similarity: shared name tokens, the video's dominant subject, and the dominant
 * subject of a time window around each caption or OCR mention.
 */
import { STOP_WORDS } from '@tessera/encoders';
import { edgeId } from '@tessera/graph/ids';
import { z } from 'zod';

/** Words that make a caption or OCR mention describe a person (clarifications, "Cross-modal linking"). */
export const PERSON_INDICATOR_WORDS: ReadonlySet<string> = new Set([
  'woman',
  'women',
  'man',
  'men',
  'person',
  'people',
  'child',
  'children',
  'boy',
  'girl',
  'scientist',
  'researcher',
  'doctor',
  'professor',
  'teacher',
  'student',
  'engineer',
  'speaker',
  'guest',
  'host',
  'presenter',
  'individual',
  'human',
  'lady',
  'gentleman',
]);

export const DEFAULT_WINDOW_S = 15;
/** Share of the document's transcript Person mentions one Person needs to be the video's subject. */
export const SUBJECT_DOMINANCE_SHARE = 0.6;
export const VIDEO_SUBJECT_PROVENANCE = 'video_subject_inference';

/** Where a mention's text came from: what was said, what a vision model described, what was written on screen. */
export const MentionSource = z.enum(['transcript', 'caption', 'ocr', 'text']);
export type MentionSource = z.infer<typeof MentionSource>;

/** One entity mention of the document, as pass 1 of the extraction flow found it. */
export const CrossModalMention = z.object({
  node_id: z.string().min(1),
  name: z.string().min(1),
  label: z.string().min(1),
  /** The edge's modality when this mention is an edge's source: `video`, `image`, `audio`, `text`. */
  modality: z.string().min(1),
  source: MentionSource,
  segment_id: z.string().min(1),
  ts_start: z.number().finite().min(0),
  ts_end: z.number().finite().min(0),
  /** The segment's text (the caption, the OCR block, the transcript sentence): the indicator gate reads it too. */
  text: z.string().default(''),
});
export type CrossModalMention = z.input<typeof CrossModalMention>;

export interface CrossModalOptions {
  sourceDocId: string;
  mentions: CrossModalMention[];
  /** Half-width of the per-window subject window, seconds. Default 15. */
  windowS?: number;
}

/** A `same_as` edge in the fields of the graph's upsert (`source`/`target` are node names), plus its id. */
export interface CrossModalEdge {
  edge_id: string;
  source: string;
  target: string;
  source_node_id: string;
  target_node_id: string;
  relation: 'same_as';
  evidence_span: string;
  segment_id: string;
  ts_start: number;
  ts_end: number;
  modality: string;
  provenance: 'INFERRED' | typeof VIDEO_SUBJECT_PROVENANCE;
  source_doc_id: string;
  confidence: number;
}

type Parsed = z.output<typeof CrossModalMention>;

const TOKEN = /[A-Za-z0-9]+/g;

/** Substantive name tokens: `[A-Za-z0-9]+`, lower-cased, at least 3 characters, not a stop word. */
export function nameTokens(name: string): Set<string> {
  const tokens = new Set<string>();
  for (const match of name.matchAll(TOKEN)) {
    const token = match[0].toLowerCase();
    if (token.length >= 3 && !STOP_WORDS.has(token)) tokens.add(token);
  }
  return tokens;
}

/** The first shared token in alphabetical order, or undefined when the names share none. */
export function sharedToken(a: string, b: string): string | undefined {
  const other = nameTokens(b);
  return [...nameTokens(a)].filter((token) => other.has(token)).sort()[0];
}

const isVisual = (m: Parsed) => m.source === 'caption' || m.source === 'ocr';
const isPerson = (m: Parsed) => m.label === 'Person';

/** A caption or OCR mention that may stand for a person: not a Person already, and a person word in it. */
export function isGenericPersonMention(mention: CrossModalMention): boolean {
  const m = CrossModalMention.parse(mention);
  return isVisual(m) && !isPerson(m) && holdsIndicator(m);
}

function holdsIndicator(m: Parsed): boolean {
  for (const text of [m.name, m.text]) {
    for (const match of text.matchAll(TOKEN)) {
      if (PERSON_INDICATOR_WORDS.has(match[0].toLowerCase())) return true;
    }
  }
  return false;
}

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

export interface Dominance {
  node_id: string;
  /** Mentions of the leading Person. */
  count: number;
  /** Person mentions counted. */
  total: number;
  share: number;
}

/**
 * The Person with the most of these transcript mentions, every mention counted (a Person named in ten segments
 * counts ten); undefined when there is none or two lead with the same count.
 */
export function leadingPerson(mentions: CrossModalMention[]): Dominance | undefined {
  const counts = new Map<string, number>();
  let total = 0;
  for (const raw of mentions) {
    const m = CrossModalMention.parse(raw);
    if (m.source !== 'transcript' || !isPerson(m)) continue;
    counts.set(m.node_id, (counts.get(m.node_id) ?? 0) + 1);
    total++;
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked;
  if (!first || (second && second[1] === first[1])) return undefined;
  return { node_id: first[0], count: first[1], total, share: first[1] / total };
}

/** The document's subject: the leading Person when it holds at least 60% of its transcript Person mentions. */
export function videoSubject(mentions: CrossModalMention[]): Dominance | undefined {
  const leader = leadingPerson(mentions);
  // Integer comparison, so exactly 60% (3 of 5) qualifies whatever the float rounding of 0.6.
  return leader && leader.count * 10 >= leader.total * SUBJECT_DOMINANCE_SHARE * 10 ? leader : undefined;
}

/** Transcript mentions whose time span meets [at − window, at + window], both ends included. */
export function mentionsInWindow(
  mentions: CrossModalMention[],
  at: number,
  windowS = DEFAULT_WINDOW_S,
): CrossModalMention[] {
  return mentions.filter((raw) => {
    const m = CrossModalMention.parse(raw);
    return m.source === 'transcript' && m.ts_start <= at + windowS && m.ts_end >= at - windowS;
  });
}

/** `same_as` edges of one document's mentions; deterministic, each edge once (by edge id). */
export function linkCrossModal(options: CrossModalOptions): CrossModalEdge[] {
  const windowS = options.windowS ?? DEFAULT_WINDOW_S;
  if (!Number.isFinite(windowS) || windowS < 0) throw new Error(`windowS must be a non-negative number`);
  const mentions = options.mentions.map((m) => CrossModalMention.parse(m));
  const names = new Map<string, string>();
  for (const m of mentions) if (!names.has(m.node_id)) names.set(m.node_id, m.name);
  const edges = new Map<string, CrossModalEdge>();

  const add = (
    from: Parsed,
    targetId: string,
    provenance: CrossModalEdge['provenance'],
    evidence: string,
    confidence: number,
  ) => {
    if (from.node_id === targetId) return;
    const id = edgeId(from.node_id, 'same_as', targetId, from.segment_id, from.ts_start, from.ts_end);
    if (edges.has(id)) return;
    edges.set(id, {
      edge_id: id,
      source: from.name,
      target: names.get(targetId)!,
      source_node_id: from.node_id,
      target_node_id: targetId,
      relation: 'same_as',
      evidence_span: evidence,
      segment_id: from.segment_id,
      ts_start: from.ts_start,
      ts_end: from.ts_end,
      modality: from.modality,
      provenance,
      source_doc_id: options.sourceDocId,
      confidence,
    });
  };

  // Shared-name-token coreference across modalities: the later mention in transcript → caption → OCR order
  // is the source, so each pair gives one edge, anchored where that (visual) mention is. Candidates come from
  // a token index, so a long video's thousands of mentions are not compared pair by pair.
  const rank: Record<MentionSource, number> = { transcript: 0, text: 0, caption: 1, ocr: 2 };
  const tokensOf = new Map<string, string[]>();
  const byToken = new Map<string, Parsed[]>();
  for (const m of mentions) {
    let tokens = tokensOf.get(m.node_id);
    if (!tokens) {
      tokens = [...nameTokens(m.name)].sort();
      tokensOf.set(m.node_id, tokens);
    }
    for (const token of tokens) {
      const list = byToken.get(token);
      if (list) list.push(m);
      else byToken.set(token, [m]);
    }
  }
  for (const a of mentions) {
    if (rank[a.source] === 0) continue;
    // a's tokens in alphabetical order: the first one that reaches a mention is the pair's evidence.
    for (const token of tokensOf.get(a.node_id)!) {
      for (const b of byToken.get(token)!) {
        if (rank[b.source] < rank[a.source]) add(a, b.node_id, 'INFERRED', `shared_token:${token}`, 1);
      }
    }
  }

  const generic = mentions.filter((m) => isVisual(m) && !isPerson(m) && holdsIndicator(m));
  if (generic.length === 0) return [...edges.values()];
  const transcript = mentions.filter((m) => m.source === 'transcript');

  const subject = videoSubject(transcript);
  if (subject) {
    for (const m of generic) {
      add(
        m,
        subject.node_id,
        VIDEO_SUBJECT_PROVENANCE,
        `video_subject:${subject.count}/${subject.total}`,
        round4(subject.share),
      );
    }
    return [...edges.values()];
  }
  // No subject for the whole document: each generic mention takes the leading Person of its own window.
  for (const m of generic) {
    const local = leadingPerson(mentionsInWindow(transcript, m.ts_start, windowS));
    if (!local) continue;
    add(
      m,
      local.node_id,
      VIDEO_SUBJECT_PROVENANCE,
      `window_subject:${local.count}/${local.total}`,
      round4(local.share),
    );
  }
  return [...edges.values()];
}
