/**
 * Identifiers and names every route takes, with their bounds: an id that cannot exist answers 422 before any
 * store is asked (a 3,000-character task id once reached DynamoDB, which refused its key, and answered 503).
 * Tenant and organization ids are not here: they answer the spec's 400 messages (`Invalid org_id …`).
 */
import { z } from 'zod';

/** C0 controls and DEL: never part of an id, a name or a header value. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A string of `min` to `max` characters without control characters (a name a client gives: a source id). */
export function name(max: number, min = 0) {
  return z
    .string()
    .min(min)
    .max(max)
    .refine((value) => !CONTROL.test(value), { message: 'control characters are not allowed' });
}

/**
 * The id of a task: a workflow or an ingestion job (`workflow_<hex>`, `ingest_<hex>`). Letters and digits
 * first, then also `_ . : -`, at most 200 characters.
 */
export const TaskId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, {
    message: 'a task id is letters, digits and _ . : - (a letter or digit first)',
  });

/** A profile name (clarifications: at most 100 letters, digits, underscores or hyphens). */
export const ProfileName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_-]+$/, {
    message: 'a profile name is at most 100 letters, digits, underscores or hyphens',
  });

/** A node given by name or id in a graph query (a name is at most 1,000 characters). */
export const NodeRef = name(1000, 1);

/** Who made a record: a user or system name. */
export const Actor = name(200, 1);

/** RFC 9110 token characters. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";

/**
 * A media type as a header carries it (`text/markdown; charset=utf-8`): type and subtype tokens and
 * parameters, nothing that could end the header (CR, LF) or start another.
 */
export const MediaType = z
  .string()
  .min(1)
  .max(200)
  .regex(new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\\\u0000-\\u001f\\u007f]*"))*$`), {
    message: "a media type such as 'text/markdown' or 'application/pdf; x=y', without control characters",
  });
