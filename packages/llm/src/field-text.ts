/**
 * The text of one top-level string field of a JSON object that arrives in pieces (a streamed answer under a
 * strict json_schema): the prose an agent answers (`summary`, `final_answer`) can be shown as the model writes
 * it, while the whole object is still parsed, and checked, once it is complete.
 */

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

export class JsonFieldText {
  private depth = 0;
  private inString = false;
  /** Undefined outside an escape; `''` right after a backslash; `u…` while a `\uXXXX` is read. */
  private escape: string | undefined;
  private isKey = false;
  /** Whether the next string at depth 1 is a key (after `{` or `,`) rather than a value (after `:`). */
  private expectKey = false;
  /** The key being read, then the last key read at depth 1. */
  private key = '';
  /** Inside the field's value. */
  private inField = false;
  /** The field's value was read to its end: a repeated key is not published again. */
  private done = false;
  /** A decoded high surrogate held back until its pair arrives, so no delta splits a character. */
  private held = '';

  constructor(readonly field: string) {}

  /** Takes the next piece of the JSON text; answers the field's text it completes ('' when none). */
  push(piece: string): string {
    let out = '';
    const char = (value: string) => {
      if (this.isKey) this.key += value;
      else if (this.inField) {
        const text = this.held + value;
        this.held = '';
        if (text.length === 1 && isHighSurrogate(text.charCodeAt(0))) this.held = text;
        else out += text;
      }
    };
    for (const ch of piece) {
      if (this.inString) {
        if (this.escape === '') {
          if (ch === 'u') this.escape = 'u';
          else {
            this.escape = undefined;
            char(ESCAPES[ch] ?? ch);
          }
        } else if (this.escape !== undefined) {
          this.escape += ch;
          if (this.escape.length === 5) {
            const code = Number.parseInt(this.escape.slice(1), 16);
            this.escape = undefined;
            if (!Number.isNaN(code)) char(String.fromCharCode(code));
          }
        } else if (ch === '\\') {
          this.escape = '';
        } else if (ch === '"') {
          this.inString = false;
          if (this.inField) {
            this.inField = false;
            this.done = true;
            out += this.held;
            this.held = '';
          }
        } else {
          char(ch);
        }
        continue;
      }
      switch (ch) {
        case '{':
          this.depth++;
          if (this.depth === 1) this.expectKey = true;
          break;
        case '[':
          this.depth++;
          break;
        case '}':
        case ']':
          this.depth--;
          break;
        case ',':
          if (this.depth === 1) this.expectKey = true;
          break;
        case ':':
          if (this.depth === 1) this.expectKey = false;
          break;
        case '"':
          this.inString = true;
          this.isKey = this.depth === 1 && this.expectKey;
          if (this.isKey) this.key = '';
          this.inField = !this.isKey && this.depth === 1 && this.key === this.field && !this.done;
          break;
      }
    }
    return out;
  }
}
