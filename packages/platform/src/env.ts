/** Deployment settings shared by every function and the local runtime. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const schema = z.object({
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /** Deployment stage; part of every resource name. */
  TESSERA_STAGE: z
    .string()
    .regex(/^[a-z0-9-]{1,20}$/, 'lower-case letters, digits and hyphens, at most 20')
    .default('local'),
  /** Where local state lives: emulator data, uploads and the search backend's tables. */
  TESSERA_DATA_DIR: z.string().min(1).default('.tessera'),
  /** Search backend location: a directory, or `s3://bucket/prefix` in AWS. Default `<data dir>/lancedb`. */
  TESSERA_SEARCH_URI: z.string().min(1).optional(),
  /** Directory holding `schemas/` and `profiles/`. */
  TESSERA_CONFIG_DIR: z.string().min(1).optional(),
});

const parsed = schema.safeParse(process.env);
if (!parsed.success) {
  throw new Error(
    `Invalid settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
  );
}

export const platformEnv = {
  ...parsed.data,
  dataDir: path.resolve(parsed.data.TESSERA_DATA_DIR),
  searchUri: parsed.data.TESSERA_SEARCH_URI ?? path.resolve(parsed.data.TESSERA_DATA_DIR, 'lancedb'),
  configDir:
    parsed.data.TESSERA_CONFIG_DIR ??
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../configs'),
};

/** Physical name of a resource: its override variable if set (the stacks set them), else `tessera-<stage>-<name>`. */
export function resourceName(def: { name: string; envVar: string }): string {
  return process.env[def.envVar] || `tessera-${platformEnv.TESSERA_STAGE}-${def.name}`;
}

/** True when the SDK will talk to an endpoint other than AWS's for `service` (emulators, LocalStack). */
export function hasCustomEndpoint(service: 'DYNAMODB' | 'S3' | 'SQS'): boolean {
  return Boolean(process.env[`AWS_ENDPOINT_URL_${service}`] || process.env.AWS_ENDPOINT_URL);
}
