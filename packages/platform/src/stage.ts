/**
 * Stage names and the resource prefix derived from them. SST takes any `--stage` and uses it in its stack
 * names (CloudFormation allows letters, digits and hyphens, starting with a letter); the platform's own
 * resource names (`tessera-<prefix>-<name>`) must also be valid S3 bucket names, the strictest of the stores:
 * lower-case letters, digits and hyphens, at most 63 characters in all.
 */
import { createHash } from 'node:crypto';

/**
 * A stage: letters of either case, digits and hyphens. Every stage SST can deploy is one (its stack names
 * `<stage>-tessera-<stack>` must match CloudFormation's `[A-Za-z][A-Za-z0-9-]*`, at most 128 long), and so is
 * every stage the platform accepted before (`[a-z0-9-]{1,20}`).
 */
export const STAGE_PATTERN = /^[A-Za-z0-9-]+$/;
export const STAGE_MAX_LENGTH = 100;

/** A stage that is already a resource prefix: kept as it is (`local`, `prod`, `pr-12`). */
const PREFIX_PATTERN = /^[a-z0-9-]{1,20}$/;
const PREFIX_MAX_LENGTH = 20;
/** Hex digits of the stage's hash kept in a derived prefix: stages that differ only in case stay apart. */
const HASH_LENGTH = 6;

/**
 * The resource prefix of a stage. A stage of lower-case letters, digits and hyphens, at most 20 long, is its
 * own prefix. Any other stage is lower-cased, each run of other characters becomes one hyphen, the result is
 * cut to 13 characters and followed by `-` and the first 6 hex digits of the stage's SHA-256: `JohnDoe` →
 * `johndoe-<hash>`. So a prefix is always 1–20 of `[a-z0-9-]`, and two stages never share one by accident.
 */
export function resourcePrefix(stage: string): string {
  if (PREFIX_PATTERN.test(stage)) return stage;
  const slug = stage
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, PREFIX_MAX_LENGTH - HASH_LENGTH - 1)
    .replace(/-+$/, '');
  const hash = createHash('sha256').update(stage).digest('hex').slice(0, HASH_LENGTH);
  return slug ? `${slug}-${hash}` : hash;
}
