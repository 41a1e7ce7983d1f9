/** Finding a model's quotation in the text it read, so spans and evidence stay verbatim. */

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Where `quote` stands in `text`: exactly, else ignoring case, else with any run of whitespace matching any other
 * (models re-flow line breaks). Undefined when the text does not hold it.
 */
export function locate(text: string, quote: string): { start: number; end: number } | undefined {
  const needle = quote.trim();
  if (needle === '') return undefined;
  const exact = text.indexOf(needle);
  if (exact >= 0) return { start: exact, end: exact + needle.length };
  const pattern = needle.split(/\s+/).map(escapeRegExp).join('\\s+');
  const match = new RegExp(pattern, 'iu').exec(text);
  return match ? { start: match.index, end: match.index + match[0].length } : undefined;
}
