/** Text helpers: evidence cuts, name validity as the graph normalizes names, comment and docstring cleaning. */

export const EVIDENCE_CHARS = 200;
export const DESCRIPTION_CHARS = 300;
/** The graph refuses longer names. */
const MAX_NAME_CHARS = 1000;

/** The first `max` UTF-16 units of `text`, without splitting a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** `source[start, end)` cut to the evidence length, without copying the whole range first. */
export function evidence(source: string, start: number, end: number): string {
  return cut(source.slice(start, Math.min(end, start + EVIDENCE_CHARS + 1)), EVIDENCE_CHARS);
}

/**
 * Whether the name gives a non-empty node id: the graph keeps the ASCII letters and digits of the name's NFD
 * form (`é` → `e`), so a name without any (`_`, `$`, `π`) cannot be a node.
 */
export function isUsableName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME_CHARS) return false;
  return /[A-Za-z0-9]/.test(name) || /[A-Za-z0-9]/.test(name.normalize('NFD'));
}

function description(text: string): string | undefined {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed === '' ? undefined : cut(collapsed, DESCRIPTION_CHARS);
}

/** `/** ... *\/` without its markers and leading `*` on each line, whitespace collapsed. */
export function cleanBlockDoc(comment: string): string | undefined {
  const body = comment.replace(/^\/\*\*?/, '').replace(/\*\/$/, '');
  return description(
    body
      .split('\n')
      .map((line) => line.replace(/^\s*\*+ ?/, ''))
      .join(' '),
  );
}

/** Consecutive `//` lines without their markers; Go directives (`//go:generate`, `//line`) are not prose. */
export function cleanLineComments(lines: string[]): string | undefined {
  return description(
    lines
      .filter((line) => !/^\/\/(go:|line )/.test(line))
      .map((line) => line.replace(/^\/\/+ ?/, ''))
      .join(' '),
  );
}

/** A Python string literal's content without prefix and quotes. */
export function cleanPythonString(literal: string): string | undefined {
  const match = /^[rRuUbBfF]{0,2}("""|'''|"|')([\s\S]*?)(?:\1)?$/.exec(literal);
  return description(match ? match[2]! : literal);
}

/** A JavaScript/TypeScript/Go string literal's content without its quotes. */
export function unquote(literal: string): string {
  const first = literal[0];
  if ((first === '"' || first === "'" || first === '`') && literal.length >= 2 && literal.endsWith(first)) {
    return literal.slice(1, -1);
  }
  return literal;
}
