/** Deployment settings shared by every function and the local runtime. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from '@tessera/core';
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

const env = parseEnv('platform', schema);

export const platformEnv = {
  ...env,
  dataDir: path.resolve(env.dataDir),
  searchUri: env.searchUri ?? path.resolve(env.dataDir, 'lancedb'),
  configDir: env.configDir ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../configs'),
};

/**
 * Physical name of a resource: its override variable if set (the stacks set them), else `tessera-<stage>-<name>`.
 * The override variables are named by the resource definitions, so they are read here rather than in the schema.
 */
export function resourceName(def: { name: string; envVar: string }): string {
  return process.env[def.envVar] || `tessera-${platformEnv.stage}-${def.name}`;
}

/**
 * True when the SDK will talk to an endpoint other than AWS's for `service` (emulators, LocalStack). Read at
 * each call: the local runtime points the SDK at its emulators after start-up.
 */
export function hasCustomEndpoint(service: 'DYNAMODB' | 'S3' | 'SQS'): boolean {
  return Boolean(process.env[`AWS_ENDPOINT_URL_${service}`] || process.env.AWS_ENDPOINT_URL);
}
