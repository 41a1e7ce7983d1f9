/**
 * Profile selection without a model: the query's modality from keyword rules, then the tenant's profile of
 * that modality that holds content (its own profiles and the shipped ones, as `/search/profiles` lists them).
 */
import type { Agents, Search } from '@tessera/api';
import { listProfiles } from '@tessera/content';
import type { TenantRef } from '@tessera/tenancy';
import type { Agent } from '../agent';
import type { AgentsDeps } from '../deps';

type Modality = Agents.Modality;

/** Words that point at a modality; a query naming none is about documents (text). */
const MODALITY_RULES: [Exclude<Modality, 'text'>, RegExp][] = [
  ['video', /\b(videos?|clips?|footage|scenes?|films?|movies?|watch(?:ing)?|frames?|youtube|lectures?)\b/gi],
  [
    'image',
    /\b(images?|photos?|pictures?|screenshots?|diagrams?|charts?|figures?|logos?|illustrations?)\b/gi,
  ],
  ['audio', /\b(audio|podcasts?|songs?|music|sounds?|speech|spoken|listen(?:ing)?|voice|recordings?)\b/gi],
  [
    'code',
    /\b(code|functions?|class(?:es)?|methods?|implementations?|implement|bugs?|apis?|repository|repo|modules?|imports?|compile[sd]?|snippets?|typescript|python|golang|javascript)\b|\b\w+\.(?:py|ts|tsx|js|go)\b|\b[a-z]+_[a-z_]+\(|\b[a-z][a-z0-9]*[A-Z]\w*\b/g,
  ],
  [
    'document',
    /\b(documents?|pdfs?|papers?|reports?|articles?|manuals?|docs|pages?|contracts?|polic(?:y|ies)|books?|chapters?)\b/gi,
  ],
];

export interface ModalityGuess {
  modality: Modality;
  /** How sure the rules are, in [0, 1]: more matching words, more sure; none, a guess. */
  confidence: number;
  reasons: string[];
}

export function guessModality(query: string): ModalityGuess {
  const scored = MODALITY_RULES.map(([modality, rule]) => ({
    modality,
    matches: [...query.matchAll(rule)].map((match) => match[0]),
  })).sort((a, b) => b.matches.length - a.matches.length);
  const [best, next] = scored;
  if (!best || best.matches.length === 0) {
    return { modality: 'document', confidence: 0.4, reasons: ['no modality named: documents assumed'] };
  }
  const margin = best.matches.length - (next?.matches.length ?? 0);
  const confidence = Math.min(0.95, 0.55 + 0.15 * margin + 0.05 * best.matches.length);
  return {
    modality: best.modality,
    confidence: Math.round(confidence * 100) / 100,
    reasons: [
      `${best.modality} named by: ${[...new Set(best.matches.map((m) => m.toLowerCase()))].join(', ')}`,
    ],
  };
}

const typeOf = (modality: Modality): Search.ProfileType => (modality === 'text' ? 'document' : modality);

export async function selectProfile(
  deps: AgentsDeps,
  tenant: TenantRef,
  query: string,
  only?: Modality,
): Promise<Agents.ProfileSelectionResult> {
  const guess = only
    ? { modality: only, confidence: 1, reasons: [`the agent searches ${only}`] }
    : guessModality(query);
  const wanted = typeOf(guess.modality);
  const { profiles } = await listProfiles(deps.content, tenant);
  const usable = profiles.filter((profile) => profile.type !== 'wiki' && (!only || profile.type === wanted));
  // Content of the wanted modality first, then any content, then the wanted modality's empty profiles.
  const scored = usable
    .map((profile) => {
      const fits = profile.type === wanted ? 1 : 0;
      const holds = profile.document_count > 0 ? 1 : 0;
      const score = guess.confidence * (0.6 * fits + 0.4 * holds) + (holds ? 0.05 : 0) + (fits ? 0.01 : 0);
      return { profile, fits, holds, score: Math.min(1, Math.round(score * 100) / 100) };
    })
    .sort(
      (a, b) =>
        b.holds * 2 + b.fits - (a.holds * 2 + a.fits) ||
        b.score - a.score ||
        b.profile.document_count - a.profile.document_count ||
        a.profile.profile_name.localeCompare(b.profile.profile_name),
    );
  const reasons = [...guess.reasons];
  const chosen = scored[0];
  if (!chosen) reasons.push(`the tenant has no ${only ? `${wanted} ` : ''}profile`);
  else if (!chosen.holds)
    reasons.push(`no profile of the tenant holds content yet: ${chosen.profile.profile_name}`);
  else if (!chosen.fits)
    reasons.push(
      `the tenant holds no ${wanted} content: ${chosen.profile.profile_name} holds ${chosen.profile.type}`,
    );
  else reasons.push(`${chosen.profile.profile_name} holds ${chosen.profile.document_count} documents`);
  return {
    selected_profile: chosen?.profile.profile_name ?? null,
    confidence: chosen ? chosen.score : 0,
    alternatives: scored.slice(1).map(({ profile, score }) => ({
      profile: profile.profile_name,
      modality: profile.type,
      confidence: score,
      documents: profile.document_count,
    })),
    modality: guess.modality,
    reasons,
    method: 'extractive',
  };
}

export const profileSelectionAgent: Agent = {
  name: 'profile_selection_agent',
  async run(deps, run) {
    await run.phase('select_profile');
    return selectProfile(deps, run.guarded, run.query);
  },
};
