/**
 * The answer text of an agent's result, the one rendering that chat answers, wiki session pages and
 * scheduled jobs' posts all use: derived from the result and nothing else: its own answer (`final_answer`,
 * `answer`, `summary`, a report's sections, a coding agent's files, a plain `text`), else a rendering of its
 * hits, else its fields. Nothing is invented: an agent that found nothing is answered with that fact.
 */

type Result = Record<string, unknown>;

const MAX_HIT_CHARS = 300;
const MAX_HITS = 5;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

const isRecord = (value: unknown): value is Result =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function clip(value: string, max: number): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A report `{title, sections: [{heading, body, citations}]}` as Markdown; none without a section. */
function reportText(report: Result): string | undefined {
  const sections = Array.isArray(report.sections) ? report.sections.filter(isRecord) : [];
  if (sections.length === 0) return undefined;
  const parts = [text(report.title) ? `# ${text(report.title)}` : undefined];
  for (const section of sections) {
    parts.push(text(section.heading) ? `## ${text(section.heading)}` : undefined, text(section.body));
  }
  const out = parts.filter((part): part is string => part !== undefined).join('\n\n');
  return out || undefined;
}

function filesText(result: Result): string | undefined {
  const files = Array.isArray(result.files) ? result.files.filter(isRecord) : [];
  if (files.length === 0) return undefined;
  const blocks = files.map(
    (file) =>
      `${String(file.path ?? 'file')}:\n\`\`\`${String(file.language ?? '')}\n${String(file.content ?? '')}\n\`\`\``,
  );
  return [text(result.explanation), ...blocks].filter(Boolean).join('\n\n');
}

/** Hits `{document_id, text, score}` as a numbered list, or the fact that there are none. */
function hitsText(results: unknown[]): string {
  const hits = results.filter(isRecord);
  if (hits.length === 0) return 'No matching content was found.';
  const lines = hits
    .slice(0, MAX_HITS)
    .map(
      (hit, i) =>
        `${i + 1}. [${String(hit.source_doc_id ?? hit.document_id ?? '')}] ${clip(String(hit.text ?? ''), MAX_HIT_CHARS)}`,
    );
  const more = hits.length > MAX_HITS ? `\n(${hits.length - MAX_HITS} more)` : '';
  return `Found ${hits.length} ${hits.length === 1 ? 'result' : 'results'}:\n${lines.join('\n')}${more}`;
}

function entitiesText(entities: unknown[]): string {
  const found = entities.filter(isRecord);
  if (found.length === 0) return 'No entities were found.';
  return `Entities: ${found.map((entity) => `${String(entity.text)} (${String(entity.label)})`).join(', ')}`;
}

/** The answer text of an agent's result. */
export function answerText(result: Result): string {
  const orchestration = isRecord(result.orchestration_result) ? result.orchestration_result : undefined;
  const own =
    text(orchestration?.final_answer) ??
    text(result.final_answer) ??
    text(result.answer) ??
    text(result.summary) ??
    (isRecord(result.report) ? reportText(result.report) : text(result.report)) ??
    filesText(result) ??
    text(result.explanation) ??
    text(result.text) ??
    text(result.content) ??
    text(result.message);
  if (own) return own;
  // The gateway answers with the result of the agent it routed to.
  if (isRecord(result.result)) return answerText(result.result);
  if (Array.isArray(result.results)) return hitsText(result.results);
  // A summary or report written from no source (an empty summary, a report without sections) found nothing.
  if (
    Array.isArray(result.sources) &&
    result.sources.length === 0 &&
    ('summary' in result || 'report' in result)
  ) {
    return 'No matching content was found.';
  }
  if (Array.isArray(result.entities) && result.keywords === undefined) return entitiesText(result.entities);
  if (result.selected_profile !== undefined) {
    return result.selected_profile === null
      ? 'The tenant has no profile to search.'
      : `Profile: ${String(result.selected_profile)} (modality ${String(result.modality)}, confidence ${Number(result.confidence).toFixed(2)})`;
  }
  if (Array.isArray(result.keywords)) {
    return `Language: ${String(result.language)}; keywords: ${(result.keywords as unknown[]).join(', ') || 'none'}; ${String(result.sentences)} sentences, ${String(result.words ?? '?')} words.`;
  }
  return `\`\`\`json\n${JSON.stringify(result, null, 2)}\n\`\`\``;
}
