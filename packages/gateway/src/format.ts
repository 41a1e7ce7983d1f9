/**
 * Reply texts: an agent's result told as plain text, escaped for Telegram's MarkdownV2, split at Telegram's
 * 4,096-character message limit without cutting an escape.
 */
import { REPLIES } from './replies';

/** Telegram's longest message text, in characters after entity parsing (escapes count before it). */
export const MESSAGE_LIMIT = 4096;

const SPECIAL = /[_*[\]()~`>#+\-=|{}.!\\]/g;
const SPECIAL_CHAR = /^[_*[\]()~`>#+\-=|{}.!\\]$/;

/** Escapes every character MarkdownV2 gives a meaning, so any text shows as written. */
export const escapeMarkdown = (text: string) => text.replace(SPECIAL, (c) => `\\${c}`);

/**
 * Splits a text into escaped pieces of at most `limit` characters each, at a line break where one falls
 * in the second half of a piece, else at a space, else anywhere; never between a backslash and what it
 * escapes.
 */
export function splitEscaped(text: string, limit = MESSAGE_LIMIT): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    // The longest prefix whose escaped form fits.
    let end = 0;
    let size = 0;
    while (end < rest.length) {
      const add = SPECIAL_CHAR.test(rest[end]!) ? 2 : 1;
      if (size + add > limit) break;
      size += add;
      end++;
    }
    if (end < rest.length) {
      const window = rest.slice(0, end);
      const newline = window.lastIndexOf('\n');
      const space = window.lastIndexOf(' ');
      if (newline > end / 2) end = newline + 1;
      else if (space > end / 2) end = space + 1;
      // A surrogate pair stays whole.
      else if (/[\uD800-\uDBFF]/.test(rest[end - 1]!)) end--;
    }
    const piece = rest.slice(0, end).trimEnd();
    if (piece.length > 0) pieces.push(escapeMarkdown(piece));
    rest = rest.slice(end);
  }
  return pieces.length > 0 ? pieces : [];
}

type Result = Record<string, unknown>;

const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

function hits(result: Result): string | undefined {
  const results = result.results;
  if (!Array.isArray(results)) return undefined;
  if (results.length === 0) return 'No results.';
  return results
    .slice(0, 5)
    .map((hit: Result, i) => {
      const source = str(hit.source_doc_id) ?? str(hit.document_id) ?? 'result';
      const text = (str(hit.text) ?? '').replace(/\s+/g, ' ').trim().slice(0, 300);
      return `${i + 1}. ${source}${text ? `\n${text}` : ''}`;
    })
    .join('\n\n');
}

/** An agent's result as the text a chat shows (with the text read in a photo, when one was). */
export function resultText(result: Result): string {
  const ocr = str(result.ocr_text)?.trim();
  if (ocr) return `Text in the photo: ${ocr}\n\n${resultText({ ...result, ocr_text: undefined })}`;
  const nested = result.result;
  if (result.routed_to !== undefined && nested && typeof nested === 'object') {
    return resultText(nested as Result);
  }
  const orchestration = result.orchestration_result as Result | undefined;
  if (orchestration && str(orchestration.final_answer)) return str(orchestration.final_answer)!;
  const report = result.report as
    | { title?: string; sections?: { heading?: string; body?: string }[] }
    | undefined;
  if (report && typeof report === 'object') {
    const sections = (report.sections ?? []).map((s) => `${s.heading ?? ''}\n${s.body ?? ''}`.trim());
    return [report.title ?? 'Report', ...sections].join('\n\n');
  }
  const files = result.files as { path?: string; content?: string }[] | undefined;
  if (Array.isArray(files) && files.length > 0) {
    const listed = files.map((f) => `${f.path ?? 'file'}:\n${f.content ?? ''}`).join('\n\n');
    return [str(result.explanation), listed].filter(Boolean).join('\n\n');
  }
  for (const key of ['answer', 'summary', 'final_answer', 'message']) {
    const text = str(result[key]);
    if (text?.trim()) return [text, hits(result)].filter((t) => t && t !== 'No results.').join('\n\n');
  }
  if (Object.keys(result).length === 0) return REPLIES.noAnswer;
  return hits(result) ?? JSON.stringify(result).slice(0, 3000);
}
