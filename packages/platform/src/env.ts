/** Deployment settings shared by every function and the local runtime. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from '@tessera/core';
import { z } from 'zod';
import { streamingUrlVariable } from './resources';
import { resourcePrefix, STAGE_MAX_LENGTH, STAGE_PATTERN } from './stage';

const schema = z.object({
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /** Deployment stage, as SST names it; its resource prefix (see stage.ts) is part of every resource name. */
  TESSERA_STAGE: z
    .string()
    .max(STAGE_MAX_LENGTH)
    .regex(STAGE_PATTERN, 'letters, digits and hyphens')
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
  /** The stage's resource prefix: `tessera-<prefix>-<name>` is a valid name in every store. */
  resourcePrefix: resourcePrefix(env.stage),
  dataDir: path.resolve(env.dataDir),
  searchUri: env.searchUri ?? path.resolve(env.dataDir, 'lancedb'),
  configDir: env.configDir ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../configs'),
};

/**
 * Physical name of a resource: its override variable if set (the stacks set them), else `tessera-<prefix>-<name>`.
 * The override variables are named by the resource definitions, so they are read here rather than in the schema.
 */
export function resourceName(def: { name: string; envVar: string }): string {
  return process.env[def.envVar] || `tessera-${platformEnv.resourcePrefix}-${def.name}`;
}

/**
 * True when the SDK will talk to an endpoint other than AWS's for `service` (emulators, LocalStack). Read at
 * each call: the local runtime points the SDK at its emulators after start-up.
 */
export function hasCustomEndpoint(service: 'DYNAMODB' | 'S3' | 'SQS'): boolean {
  return Boolean(process.env[`AWS_ENDPOINT_URL_${service}`] || process.env.AWS_ENDPOINT_URL);
}

/**
 * Where a client follows a streaming route, `route` with `params` filled in. In AWS API Gateway cannot
 * stream, so the route is served by a function URL of its own, which the stacks give every function in
 * `streamingUrlVariable(route)`: the answer is that URL with the path. Without it (the local runtime, which
 * streams on its own port) the answer is the path on the API.
 */
export function streamingUrl(route: string, params: Record<string, string>): string {
  const path = route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`streamingUrl: no value for {${name}} in ${route}`);
    return encodeURIComponent(value);
  });
  const base = process.env[streamingUrlVariable(route)];
  return base ? `${base.replace(/\/+$/, '')}${path}` : path;
}

/**
 * Settings kept out of the environment: `<VAR>_SECRET_ARN` names a Secrets Manager secret and
 * `<VAR>_PARAMETER` an SSM parameter (name or ARN) holding the value of `<VAR>`, for the variables of
 * SECRET_SETTINGS. Read once at cold start by resolveSecretSettings, which sets `<VAR>` before any other
 * package reads its settings.
 */
export function secretReferences(
  variables: readonly string[],
): { variable: string; source: { secretArn: string } | { parameterName: string } }[] {
  const references = [];
  for (const variable of variables) {
    const secretArn = process.env[`${variable}_SECRET_ARN`];
    const parameterName = process.env[`${variable}_PARAMETER`];
    if (secretArn && parameterName)
      throw new Error(
        `Invalid platform settings: set ${variable}_SECRET_ARN or ${variable}_PARAMETER, not both`,
      );
    if (secretArn) references.push({ variable, source: { secretArn } });
    else if (parameterName) references.push({ variable, source: { parameterName } });
  }
  return references;
}

/** Sets a variable resolved from its secret (see secretReferences). */
export function setSecretSetting(variable: string, value: string): void {
  process.env[variable] = value;
}
