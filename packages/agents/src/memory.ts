/**
 * What a completed run leaves in its tenant's memories: the query and one line saying what the answer was,
 * taken from the result itself (its answer's or summary's first sentence, the top hit's source, the files
 * written...), never written anew.
 */
import { sentences } from './text';

const QUERY_CHARS = 500;
const LINE_CHARS = 300;

type Result = Record<string, unknown>;

const isRecord = (value: unknown): value is Result =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
const firstSentence = (value: string) => sentences(value)[0] ?? value.trim();
const names = (values: unknown[], key: string) =>
  values
    .map((value) => (isRecord(value) ? text(value[key]) : undefined))
    .filter((value): value is string => value !== undefined)
    .slice(0, 5);

/** One line of what the result answered, from its own fields; undefined when it says nothing to keep. */
export function answerLine(result: Result, depth = 0): string | undefined {
  const orchestration = isRecord(result.orchestration_result) ? result.orchestration_result : undefined;
  for (const value of [result.answer, result.summary, result.final_answer, orchestration?.final_answer]) {
    const said = text(value);
    if (said) return firstSentence(said);
  }
  if (isRecord(result.report) && text(result.report.title)) return `report: ${result.report.title}`;
  // The gateway's result holds the routed agent's.
  if (depth < 3 && isRecord(result.result)) {
    const routed = answerLine(result.result, depth + 1);
    if (routed) return text(result.routed_to) ? `${result.routed_to}: ${routed}` : routed;
  }
  if (Array.isArray(result.results)) {
    const [top] = result.results;
    if (!isRecord(top)) return 'no results';
    const source = text(top.source_doc_id) ?? text(top.document_id);
    const hit = text(top.text);
    return `top hit ${source ?? ''}${hit ? `: ${firstSentence(hit)}` : ''}`.trim();
  }
  if (Array.isArray(result.files)) {
    const paths = names(result.files, 'path');
    return paths.length ? `files: ${paths.join(', ')}` : 'no files';
  }
  if (Array.isArray(result.entities) && result.entity_count !== undefined) {
    const found = names(result.entities, 'text');
    return found.length ? `entities: ${found.join(', ')}` : 'no entities';
  }
  if (text(result.selected_profile)) return `profile: ${result.selected_profile}`;
  if (text(result.enhanced_query)) return `enhanced query: ${result.enhanced_query}`;
  if (Array.isArray(result.keywords)) {
    const words = result.keywords.filter((word): word is string => typeof word === 'string').slice(0, 8);
    return `language ${String(result.language ?? 'und')}; keywords: ${words.join(', ') || 'none'}`;
  }
  return undefined;
}

const oneLine = (value: string, limit: number) => {
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
};

/** The memory a completed run leaves: the query, then what the answer was. */
export function memoryOf(query: string, result: Result): string {
  const line = answerLine(result);
  return `Q: ${oneLine(query, QUERY_CHARS)}\nA: ${line ? oneLine(line, LINE_CHARS) : 'completed with no answer text'}`;
}
