/** Turns zod failures into the 422 body `{detail: [{type, loc, msg, input}]}`. */
import type { ValidationIssue } from '@tessera/core';
import { ValidationError } from '@tessera/core';
import type { z } from 'zod';

type Location = 'body' | 'query' | 'path';

const typeNames: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['float_type', 'Input should be a valid number'],
  int: ['int_type', 'Input should be a valid integer'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  array: ['list_type', 'Input should be a valid list'],
  object: ['dict_type', 'Input should be a valid dictionary or object'],
};

function describe(issue: z.core.$ZodIssue): { type: string; msg: string } {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return { type: 'missing', msg: 'Field required' };
      const known = typeNames[issue.expected];
      return known
        ? { type: known[0], msg: known[1] }
        : { type: `${issue.expected}_type`, msg: issue.message };
    }
    case 'too_small':
      if (issue.origin === 'string') {
        return {
          type: 'string_too_short',
          msg: `String should have at least ${issue.minimum} character${Number(issue.minimum) === 1 ? '' : 's'}`,
        };
      }
      if (issue.origin === 'array') {
        return { type: 'too_short', msg: `List should have at least ${issue.minimum} items` };
      }
      return {
        type: issue.inclusive ? 'greater_than_equal' : 'greater_than',
        msg: `Input should be greater than${issue.inclusive ? ' or equal to' : ''} ${issue.minimum}`,
      };
    case 'too_big':
      if (issue.origin === 'string') {
        return { type: 'string_too_long', msg: `String should have at most ${issue.maximum} characters` };
      }
      if (issue.origin === 'array') {
        return { type: 'too_long', msg: `List should have at most ${issue.maximum} items` };
      }
      return {
        type: issue.inclusive ? 'less_than_equal' : 'less_than',
        msg: `Input should be less than${issue.inclusive ? ' or equal to' : ''} ${issue.maximum}`,
      };
    case 'invalid_value':
      return {
        type: 'enum',
        msg: `Input should be ${issue.values
          .map((v) => `'${String(v)}'`)
          .join(', ')
          .replace(/, ([^,]*)$/, ' or $1')}`,
      };
    case 'unrecognized_keys':
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' };
    case 'invalid_format':
      return issue.format === 'regex'
        ? { type: 'string_pattern_mismatch', msg: `String should match the pattern: ${issue.message}` }
        : { type: 'value_error', msg: issue.message };
    default:
      return { type: 'value_error', msg: issue.message };
  }
}

/** The value at `path` inside `root`, for reporting what a missing field's parent held. */
function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Unknown fields named one by one; the rest are counted in one issue. */
const MAX_NAMED_EXTRAS = 20;

export function issuesFromZod(location: Location, error: z.ZodError, root?: unknown): ValidationIssue[] {
  return error.issues.flatMap((issue) => {
    const { type, msg } = describe(issue);
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    // As FastAPI does, each unknown field is its own issue, located at that field.
    if (issue.code === 'unrecognized_keys') {
      const named = issue.keys.slice(0, MAX_NAMED_EXTRAS).map((key) => ({
        type,
        loc: [location, ...path, key],
        msg,
        input: valueAt(root, [...issue.path, key]) ?? null,
      }));
      const more = issue.keys.length - named.length;
      if (more === 0) return named;
      return [...named, { type, loc: [location, ...path], msg: `${msg}: ${more} more fields`, input: null }];
    }
    // As FastAPI does, a missing field reports the object it is missing from.
    const input =
      type === 'missing' ? (valueAt(root, issue.path.slice(0, -1)) ?? null) : (issue.input ?? null);
    return [{ type, loc: [location, ...path], msg, input }];
  });
}

/** Parses `input` with `schema` or throws a 422 naming each problem. */
export function validate<S extends z.ZodType>(location: Location, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw new ValidationError(issuesFromZod(location, result.error, input));
  return result.data;
}
