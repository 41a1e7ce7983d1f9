/**
 * The retrieval agents: search over the tenant's content index (as `/search/` does) with the context's
 * profile or the one profile selection chooses; document, image and audio agents search their modality and
 * answer the sentence of the hits that best answers the query, verbatim.
 */
import { type Agents, Search } from '@tessera/api';
import { resolveProfile, searchContent } from '@tessera/content';
import { BadRequestError, ServiceUnavailableError, ValidationError } from '@tessera/core';
import type { Agent, AgentRun } from '../agent';
import type { AgentsDeps } from '../deps';
import { imageFormat, UnreadablePhotoError } from '../ocr';
import { overlap, queryTerms, sentences } from '../text';
import { selectProfile } from './profile-selection';

export interface Retrieval extends Agents.SearchAgentResult {
  /** The full text of each hit (its profile's text fields), for agents that read more than the snippet. */
  texts: Map<string, string>;
}

export async function retrieve(
  deps: AgentsDeps,
  run: AgentRun,
  options: { modality?: Agents.Modality; topK?: number } = {},
): Promise<Retrieval> {
  const strategy =
    run.context.strategy === undefined ? undefined : Search.RankingStrategy.safeParse(run.context.strategy);
  if (strategy && !strategy.success) {
    throw new BadRequestError(
      `Unknown strategy '${run.context.strategy}': expected one of ${Search.RankingStrategy.options.join(', ')}`,
    );
  }
  let profile = run.context.profile;
  const selectedBy = profile ? 'context' : 'profile_selection_agent';
  if (!profile) {
    await run.phase('select_profile');
    profile =
      (await selectProfile(deps, run.guarded, run.query, options.modality)).selected_profile ?? undefined;
  }
  const empty = {
    results: [],
    count: 0,
    profile: profile ?? null,
    strategy: null,
    profile_selected_by: selectedBy,
    sources: [],
    method: 'retrieval',
    texts: new Map(),
  } as const;
  if (!profile) return { ...empty, results: [], sources: [], texts: new Map() };
  await run.phase('retrieval');
  const found = await searchContent(
    deps.content,
    {
      query: run.query,
      tenant_id: run.tenant.full,
      profile,
      strategy: strategy?.data,
      top_k: options.topK ?? run.context.top_k ?? 10,
    },
    run.guarded,
  );
  const textFields = (await resolveProfile(deps.content, run.tenant.full, found.profile ?? profile))
    .text_fields;
  const texts = new Map(
    found.results.map((hit) => [
      hit.document_id,
      textFields
        .map((field) => hit.fields[field])
        .filter((value): value is string => typeof value === 'string' && value !== '')
        .join('\n'),
    ]),
  );
  const results = found.results.map(({ document_id, source_doc_id, score, rank, text, profile: p }) => ({
    document_id,
    source_doc_id,
    score,
    rank,
    text,
    profile: p,
  }));
  return {
    results,
    count: results.length,
    profile: found.profile ?? profile,
    strategy: typeof found.strategy === 'string' ? found.strategy : null,
    profile_selected_by: selectedBy,
    sources: results.map((hit) => hit.document_id),
    method: 'retrieval',
    texts,
  };
}

export const searchAgent: Agent = {
  name: 'search_agent',
  async run(deps, run) {
    const { texts: _texts, ...result } = await retrieve(deps, run);
    return result;
  },
};

/** The sentence of the hits that shares most of the query's terms (ties: the better-ranked hit), verbatim. */
export function bestSentence(query: string, hits: { document_id: string }[], texts: Map<string, string>) {
  const terms = queryTerms(query);
  let best: { sentence: string; score: number } | undefined;
  for (const [rank, hit] of hits.entries()) {
    for (const sentence of sentences(texts.get(hit.document_id) ?? '')) {
      const score = overlap(terms, sentence) - rank * 1e-3;
      if (score > 0 && (!best || score > best.score)) best = { sentence, score };
    }
  }
  return best?.sentence ?? null;
}

const photoIssue = (msg: string, input: string, field = 'media_content_b64') =>
  new ValidationError([{ type: 'value_error', loc: ['body', 'context', field], msg, input }]);

/** The bytes of `context.media_content_b64`: 422 for anything but non-empty standard base64 of an OCR image. */
export function photoBytes(b64: unknown, mime: unknown): Buffer {
  if (typeof b64 !== 'string') throw photoIssue('media_content_b64 must be a base64 string', typeof b64);
  const compact = b64.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
  if (compact === '' || compact.length % 4 === 1 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) {
    throw photoIssue('media_content_b64 is not valid base64', '(not base64)');
  }
  if (mime !== undefined && (typeof mime !== 'string' || !/^image\//i.test(mime))) {
    throw photoIssue(
      `media_mime must be an image type, not ${String(mime).slice(0, 100)}`,
      String(mime).slice(0, 100),
      'media_mime',
    );
  }
  const bytes = Buffer.from(compact, 'base64');
  if (!imageFormat(bytes)) {
    throw photoIssue('media_content_b64 is not a PNG, JPEG, WebP or BMP image', '(not an image)');
  }
  return bytes;
}

/** The text of the context's photo, read by OCR; 422 when it cannot be read as an image. */
async function photoText(deps: AgentsDeps, run: AgentRun): Promise<string | undefined> {
  if (run.context.media_content_b64 === undefined) return undefined;
  const bytes = photoBytes(run.context.media_content_b64, run.context.media_mime);
  if (!deps.ocr) {
    throw new ServiceUnavailableError('ocr_unavailable', 'This process has no OCR to read the photo with');
  }
  await run.phase('ocr');
  try {
    return (await deps.ocr.read(bytes)).trim();
  } catch (error) {
    const message = (error as Error).message;
    if (error instanceof UnreadablePhotoError) {
      throw photoIssue(`The photo could not be read: ${message.slice(0, 200)}`, '(photo)');
    }
    throw new ServiceUnavailableError('ocr_unavailable', `OCR failed: ${message.slice(0, 300)}`);
  }
}

function modalAgent(name: Agents.AgentName, modality: Agents.Modality): Agent {
  return {
    name,
    async run(deps, run) {
      const ocr_text = modality === 'image' ? await photoText(deps, run) : undefined;
      // The photo's text is searched with the query.
      const searched = ocr_text ? { ...run, query: `${run.query}\n${ocr_text}`.slice(0, 20_000) } : run;
      const { texts, ...found } = await retrieve(deps, searched, { modality });
      const answer = bestSentence(searched.query, found.results, texts);
      return {
        ...found,
        modality,
        answer,
        method: answer === null ? 'retrieval' : 'extractive',
        ...(ocr_text === undefined ? {} : { ocr_text }),
      };
    },
  };
}

export const documentAgent = modalAgent('document_agent', 'document');
export const imageSearchAgent = modalAgent('image_search_agent', 'image');
export const audioAnalysisAgent = modalAgent('audio_analysis_agent', 'audio');
