/** zod helpers for query-string parameters, which always arrive as strings. */
import { z } from 'zod';

const truthy = new Set(['true', '1', 'yes', 'on']);
const falsy = new Set(['false', '0', 'no', 'off']);

/** A boolean query flag accepting true/false, 1/0, yes/no, on/off. */
export function queryBoolean(defaultValue: boolean) {
  return z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value !== undefined && !truthy.has(value.toLowerCase()) && !falsy.has(value.toLowerCase())) {
        ctx.addIssue({
          code: 'custom',
          message: 'Input should be a valid boolean, unable to interpret input',
        });
      }
    })
    .transform((value) => (value === undefined ? defaultValue : truthy.has(value.toLowerCase())))
    .meta({
      override: {
        type: 'string',
        enum: ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'],
        default: String(defaultValue),
      },
    });
}

/** An integer query parameter within bounds. */
export function queryInt(options: { min: number; max: number; default: number }) {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return options.default;
      if (!/^-?\d+$/.test(value.trim())) {
        ctx.addIssue({
          code: 'custom',
          message: 'Input should be a valid integer, unable to parse string as an integer',
        });
        return z.NEVER;
      }
      return Number(value);
    })
    .pipe(z.number().int().min(options.min).max(options.max))
    .meta({
      override: {
        type: 'integer',
        minimum: options.min,
        maximum: options.max,
        default: options.default,
      },
    });
}
