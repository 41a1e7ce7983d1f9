/**
 * Settings the functions get from the deployment: inference and LLM endpoints (plain variables) and their
 * keys, which only ever travel as a reference to Secrets Manager or SSM Parameter Store. A function gets a
 * setting only when its bundle reads the variable.
 */
import { SECRET_SETTINGS } from '@tessera/platform/secret-settings';

/** Where a key is kept: a Secrets Manager secret (its ARN) or an SSM parameter (its name or ARN). */
export type SecretSource = { secretArn: string } | { parameterName: string };

export interface FunctionSettings {
  /** Plain settings by variable: endpoint URLs, model names, dimensions. */
  environment?: Record<string, string>;
  /** Keys by variable (`TESSERA_LLM_API_KEY`), resolved by the function at cold start. */
  secrets?: Record<string, SecretSource>;
}

/** Variables a deployment may set on the functions, besides the keys of SECRET_SETTINGS. */
export const DEPLOY_SETTINGS = [
  'TESSERA_POOLING_URL',
  'TESSERA_POOLING_MODEL',
  'TESSERA_EMBEDDINGS_URL',
  'TESSERA_EMBEDDINGS_MODEL',
  'TESSERA_EMBEDDINGS_DIM',
  'TESSERA_ENCODER_TIMEOUT_MS',
  'TESSERA_ENCODER_RETRIES',
  'TESSERA_ENTITY_EXTRACTOR',
  'TESSERA_GLINER_URL',
  'TESSERA_GLINER_THRESHOLD',
  'TESSERA_LLM_BASE_URL',
  'TESSERA_LLM_MODEL',
  'TESSERA_LLM_TEMPERATURE',
  'TESSERA_LLM_MAX_TOKENS',
  'TESSERA_LLM_REQUEST_TIMEOUT',
  'TESSERA_LLM_NUM_RETRIES',
  'TESSERA_LLM_SEED',
  // The media models (read by the media worker; a sidecar the stack runs sets its own).
  'TESSERA_TRANSCRIPTION_URL',
  'TESSERA_TRANSCRIPTION_MODEL',
  'TESSERA_CAPTION_URL',
  'TESSERA_CAPTION_MODEL',
  'TESSERA_VIDEO_EMBED_URL',
  'TESSERA_AUDIO_EMBED_URL',
  'TESSERA_VISUAL_POOLING_URL',
  'TESSERA_VISUAL_POOLING_MODEL',
  'TESSERA_INFERENCE_TIMEOUT_S',
  'TESSERA_INFERENCE_ATTEMPTS',
  // The semantic router in front of the LLM endpoints (the system configuration's block, overridden).
  'SEMANTIC_ROUTER_ENABLED',
  'SEMANTIC_ROUTER_URL',
  // Telemetry: the deployment's OTLP/HTTP collector, the tracer cache's bound and the export timeout.
  'TESSERA_TELEMETRY_URL',
  'TESSERA_TELEMETRY_MAX_CACHED_TENANTS',
  'TESSERA_TELEMETRY_EXPORT_TIMEOUT_MS',
] as const;

const secretVariables: ReadonlySet<string> = new Set(SECRET_SETTINGS);

/** Refuses a key given as a plain setting, and a secret or setting the functions do not know. */
export function checkSettings(settings: FunctionSettings): void {
  for (const variable of Object.keys(settings.environment ?? {})) {
    if (secretVariables.has(variable)) {
      throw new Error(
        `${variable} is a key: keep it in Secrets Manager or SSM Parameter Store and give its ARN or parameter name (${variable}_SECRET_ARN or ${variable}_PARAMETER), never its value`,
      );
    }
    if (!(DEPLOY_SETTINGS as readonly string[]).includes(variable))
      throw new Error(`${variable} is not a setting the functions read (${DEPLOY_SETTINGS.join(', ')})`);
  }
  for (const variable of Object.keys(settings.secrets ?? {})) {
    if (!secretVariables.has(variable))
      throw new Error(`${variable} is not a key the functions read (${SECRET_SETTINGS.join(', ')})`);
  }
}

/** The GPU inference sidecars a stack may run (document 3's contracts), by name. */
export const SIDECARS = ['transcription', 'captioning', 'video-embedding', 'audio-embedding'] as const;
export type SidecarName = (typeof SIDECARS)[number];

/** Where media runs in a deployment. */
export interface MediaSettings {
  /** The media worker as a Fargate task the ingestion worker starts for media jobs (default true). */
  worker: boolean;
  /** GPU sidecars run in the stack, their endpoints given to the media worker (default none). */
  sidecars: SidecarName[];
  /** EC2 instance type of the sidecars (one GPU each; default g5.xlarge). */
  gpuInstanceType?: string;
}

/** Refuses sidecars without the worker that calls them, and a sidecar whose endpoint a setting also names. */
export function checkMediaSettings(media: MediaSettings, settings: FunctionSettings = {}): void {
  if (!media.worker && media.sidecars.length > 0)
    throw new Error(
      'GPU sidecars are called by the media worker only: they need TESSERA_MEDIA_WORKER=fargate',
    );
  const endpoints: Record<SidecarName, string> = {
    transcription: 'TESSERA_TRANSCRIPTION_URL',
    captioning: 'TESSERA_CAPTION_URL',
    'video-embedding': 'TESSERA_VIDEO_EMBED_URL',
    'audio-embedding': 'TESSERA_AUDIO_EMBED_URL',
  };
  for (const sidecar of media.sidecars) {
    const variable = endpoints[sidecar];
    if (settings.environment?.[variable])
      throw new Error(`${variable} is set and the ${sidecar} sidecar runs in the stack: choose one`);
  }
}
