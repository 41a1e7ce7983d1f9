/**
 * Parsed expressions for dynalite, remembered. dynalite parses every request's condition and update
 * expressions with generated PEG parsers that backtrack heavily: under a stream of appends to task events,
 * parsing took about half of its time per UpdateItem, for the same few expressions over and over.
 *
 * A parse depends only on the expression, whether it is a key condition, and the names and values of the
 * placeholders it mentions (it checks their types and inlines them), so those make the cache key. On a hit:
 * - the answer is a fresh copy of the remembered tree, because dynalite writes resolved values into an
 *   update's tree;
 * - the placeholders are marked used, as the parse would have marked them (dynalite refuses unused ones).
 * Parses that throw (syntax errors) are not remembered.
 */
import { createRequire } from 'node:module';

interface ParseContext {
  attrNames?: Record<string, unknown>;
  attrVals?: Record<string, unknown>;
  unusedAttrNames: Record<string, boolean>;
  unusedAttrVals: Record<string, boolean>;
  isKeyCondition?: boolean;
}

interface Parser {
  parse(expression: string, options: { context: ParseContext }): unknown;
  remembersParses?: boolean;
}

/** Parses remembered per parser, dropped all at once when this many pile up. */
const LIMIT = 2000;
/** Longer keys (large values) are parsed every time: they would hold memory and rarely come again. */
const LONGEST_KEY = 4096;
/**
 * An attribute name (`#name`) or value (`:value`) placeholder: the only tokens of DynamoDB's expression
 * syntax that start with `#` or `:` (it has no string literals). dynalite refuses a request whose names or
 * values hold any other key (it checks them against `^[#:][0-9a-zA-Z_]+$` before parsing), so every
 * placeholder a parse can resolve is matched whole, and its value is in the key.
 */
const PLACEHOLDER = /[#:][0-9A-Za-z_]+/g;

/** A deep copy of plain data (objects, with or without a prototype, arrays, primitives); `undefined` when it holds anything else. */
function copy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  if (Array.isArray(value)) {
    const items = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      items[i] = copy(value[i]);
      if (items[i] === undefined && value[i] !== undefined) return undefined;
    }
    return items;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const fields: Record<string, unknown> = Object.create(prototype);
  for (const [name, field] of Object.entries(value)) {
    // Assigning an own `__proto__` would change the copy's prototype instead.
    if (name === '__proto__') return undefined;
    fields[name] = copy(field);
    if (fields[name] === undefined && field !== undefined) return undefined;
  }
  return fields;
}

function remember(parser: Parser): void {
  if (parser.remembersParses) return;
  parser.remembersParses = true;
  const parse = parser.parse;
  const parsed = new Map<string, unknown>();
  parser.parse = (expression, options) => {
    const context = options.context;
    const placeholders = [...new Set(expression.match(PLACEHOLDER) ?? [])];
    let key: string;
    try {
      key = JSON.stringify([
        expression,
        Boolean(context.isKeyCondition),
        placeholders.map((token) =>
          token.startsWith('#') ? context.attrNames?.[token] : context.attrVals?.[token],
        ),
      ]);
    } catch {
      return parse(expression, options);
    }
    if (key.length > LONGEST_KEY) return parse(expression, options);
    if (parsed.has(key)) {
      const result = parsed.get(key);
      if (typeof result === 'string') return result;
      for (const token of placeholders) {
        if (token.startsWith('#')) delete context.unusedAttrNames[token];
        else delete context.unusedAttrVals[token];
      }
      return copy(result);
    }
    const result = parse(expression, options);
    const kept = copy(result);
    if (kept === undefined) return result;
    if (parsed.size >= LIMIT) parsed.clear();
    parsed.set(key, kept);
    return result;
  };
}

/** Makes dynalite, in this process, parse each distinct expression once. */
export function rememberDynaliteParses(): void {
  const load = createRequire(import.meta.url);
  for (const parser of ['conditionParser', 'updateParser', 'projectionParser'])
    remember(load(`dynalite/db/${parser}`) as Parser);
}
