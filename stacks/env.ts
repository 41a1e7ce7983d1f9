/**
 * Deploy-time settings, read from the environment of `sst deploy` or `cdk deploy` (SST also loads
 * `.env.<stage>`): the inference and LLM endpoints the functions use, and where their keys are kept.
 *
 * Parsed with zod here rather than with @tessera/core's parseEnv: SST loads every package the root
 * package.json lists as it is, without compiling it, and core is listed there (the sst build test fails on
 * any such import in what sst.config.ts reaches). The rules are parseEnv's: an empty variable counts as
 * unset, and a bad one throws naming it.
 */
import { SECRET_SETTINGS } from '@tessera/platform/secret-settings';
import { z } from 'zod';
import {
  checkMediaSettings,
  checkSettings,
  DEPLOY_SETTINGS,
  type FunctionSettings,
  type MediaSettings,
  type SecretSource,
  SIDECARS,
  type SidecarName,
} from './settings';

const plain = Object.fromEntries(DEPLOY_SETTINGS.map((variable) => [variable, z.string().optional()]));
const references = Object.fromEntries(
  SECRET_SETTINGS.flatMap((variable) => [
    [
      `${variable}_SECRET_ARN`,
      z
        .string()
        .regex(/^arn:aws[\w-]*:secretsmanager:/, 'a Secrets Manager ARN')
        .optional(),
    ],
    [`${variable}_PARAMETER`, z.string().min(1).optional()],
    // Named only to be refused: a key never goes into a function's plain environment.
    [variable, z.string().optional()],
  ]),
);

/** Reads the deploy settings from `source` (the environment by default). */
export function deploySettings(source: Record<string, string | undefined> = process.env): FunctionSettings {
  const given = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = z.object({ ...plain, ...references }).safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid deploy settings: ${problems.join('; ')}`);
  }
  // Variables keep their names here: they are passed on to the functions as they are.
  const set = parsed.data as Record<string, string | undefined>;
  const byVariable = (variable: string): string | undefined => set[variable];
  const environment: Record<string, string> = {};
  for (const variable of DEPLOY_SETTINGS) {
    const value = byVariable(variable);
    if (value !== undefined) environment[variable] = value;
  }
  const secrets: Record<string, SecretSource> = {};
  for (const variable of SECRET_SETTINGS) {
    const value = byVariable(variable);
    if (value !== undefined) environment[variable] = value; // refused by checkSettings
    const secretArn = byVariable(`${variable}_SECRET_ARN`);
    const parameterName = byVariable(`${variable}_PARAMETER`);
    if (secretArn && parameterName)
      throw new Error(
        `Invalid deploy settings: set ${variable}_SECRET_ARN or ${variable}_PARAMETER, not both`,
      );
    if (secretArn) secrets[variable] = { secretArn };
    else if (parameterName) secrets[variable] = { parameterName };
  }
  const settings = { environment, secrets };
  checkSettings(settings);
  return settings;
}

const mediaSchema = z.object({
  /** `fargate` (default): media jobs run in the media worker's task; `off`: no media worker (media fails). */
  TESSERA_MEDIA_WORKER: z.enum(['fargate', 'off']).default('fargate'),
  /** Comma-separated GPU sidecars to run (transcription, captioning, video-embedding, audio-embedding). */
  TESSERA_GPU_SIDECARS: z.string().optional(),
  /** The sidecars' EC2 instance type (one NVIDIA GPU each). */
  TESSERA_GPU_INSTANCE_TYPE: z
    .string()
    .regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/, 'an EC2 instance type such as g5.xlarge')
    .optional(),
});

/**
 * Where media runs, read from `source` (the environment by default), checked against the deploy settings
 * (a sidecar and a setting must not both give one endpoint).
 */
export function deployMediaSettings(
  settings?: FunctionSettings,
  source: Record<string, string | undefined> = process.env,
): MediaSettings {
  const given = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = mediaSchema.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid deploy settings: ${problems.join('; ')}`);
  }
  const sidecars = (parsed.data.TESSERA_GPU_SIDECARS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of sidecars) {
    if (!(SIDECARS as readonly string[]).includes(name))
      throw new Error(
        `Invalid deploy settings: TESSERA_GPU_SIDECARS: ${name} is not a sidecar (${SIDECARS.join(', ')})`,
      );
  }
  const media: MediaSettings = {
    worker: parsed.data.TESSERA_MEDIA_WORKER === 'fargate',
    sidecars: [...new Set(sidecars)] as SidecarName[],
    gpuInstanceType: parsed.data.TESSERA_GPU_INSTANCE_TYPE,
  };
  checkMediaSettings(media, settings);
  return media;
}
