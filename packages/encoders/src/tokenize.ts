/** The word tokenizer shared by the embedded encoders: folded words plus the parts of code identifiers. */

/** Small English stop-word list: function words that carry no topic. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers herself him himself his how if in into is it its itself just me more most my ' +
    'myself no nor not now of off on once only or other our ours ourselves out over own same she should so ' +
    'some such than that the their theirs them themselves then there these they this those through to too ' +
    'under until up very was we were what when where which while who whom why will with would you your ' +
    'yours yourself yourselves'
  ).split(' '),
);

const IDENTIFIER = /[\p{L}\p{N}_]+/gu;
// The same on text of printable ASCII only (most text), where the Unicode classes cost time for nothing.
const ASCII_IDENTIFIER = /[A-Za-z0-9_]+/g;
const COMBINING_MARKS = /\p{M}+/gu;
const NON_ASCII = /[^\t\n\r\x20-\x7e]/;
// camelCase and acronym boundaries: "parseTenantId" → parse|Tenant|Id, "HTTPServer" → HTTP|Server,
// "utf8Decode" → utf8|Decode.
const CASE_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const HAS_INNER_CASE = /[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;

/** Unicode NFKD with combining marks removed, so "café" and "cafe" are one word. */
export function foldText(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.normalize('NFKD').replace(COMBINING_MARKS, '');
}

function keep(token: string): boolean {
  return token.length > 1 && !STOP_WORDS.has(token);
}

/**
 * Lower-cased word tokens of `text` in reading order, duplicates kept. A snake_case or camelCase identifier
 * yields the whole identifier (underscores removed) followed by its parts, so `parseTenantId` and
 * `parse_tenant_id` both give parsetenantid, parse, tenant, id. Stop words and 1-character tokens are dropped.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const ascii = !NON_ASCII.test(text);
  for (const match of (ascii ? text : foldText(text)).matchAll(ascii ? ASCII_IDENTIFIER : IDENTIFIER)) {
    const raw = match[0];
    const snake = raw.includes('_');
    const word = raw.toLowerCase();
    // A word already in lower case has no inner capital: the case test is skipped for most words.
    if (!snake && (word === raw || !HAS_INNER_CASE.test(raw))) {
      if (keep(word)) tokens.push(word);
      continue;
    }
    const parts: string[] = [];
    for (const piece of raw.split('_')) {
      if (piece.length === 0) continue;
      if (HAS_INNER_CASE.test(piece)) {
        for (const part of piece.split(CASE_BOUNDARY)) parts.push(part.toLowerCase());
      } else {
        parts.push(piece.toLowerCase());
      }
    }
    if (parts.length === 0) continue;
    const whole = parts.join('');
    if (keep(whole)) tokens.push(whole);
    if (parts.length > 1) for (const part of parts) if (keep(part)) tokens.push(part);
  }
  return tokens;
}

/** Distinct tokens in order of first occurrence, at most `limit`. */
export function distinctTokens(text: string, limit: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const token of tokenize(text)) {
    if (seen.has(token)) continue;
    seen.add(token);
    out.push(token);
    if (out.length >= limit) break;
  }
  return out;
}
