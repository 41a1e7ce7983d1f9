/**
 * Which model servers the media pipelines call: the environment's (`TESSERA_*_URL`), overridden per profile by
 * `extra_config.inference_services`. No URL for a service → that stage is skipped and the result says why.
 */
import { z } from 'zod';
import { type Captioner, OpenAICaptioner } from './caption';
import { type MediaEnv, mediaEnv } from './env';
import type { EndpointOptions } from './openai-client';
import { EmbeddingSidecar } from './sidecar';
import { OpenAITranscriptionClient, type TranscriptionClient } from './transcription';
import { VisualPoolingEncoder } from './visual';

/** A profile's `extra_config.inference_services` (fields of other services are left to their packages). */
export const MediaInferenceServices = z.object({
  transcription_url: z.url().optional(),
  transcription_model: z.string().min(1).optional(),
  /** Spoken language hint (ISO 639-1) sent with each chunk. */
  transcription_language: z.string().min(2).max(8).optional(),
  caption_url: z.url().optional(),
  caption_model: z.string().min(1).optional(),
  video_embed_url: z.url().optional(),
  audio_embed_url: z.url().optional(),
  visual_pooling_url: z.url().optional(),
  visual_pooling_model: z.string().min(1).optional(),
});
export type MediaInferenceServices = z.infer<typeof MediaInferenceServices>;

export interface ResolvedMediaServices {
  transcription?: EndpointOptions & { language?: string };
  captioning?: EndpointOptions;
  videoEmbed?: { url: string };
  audioEmbed?: { url: string };
  visualPooling?: { url: string; model: string };
}

export const TRANSCRIPTION_NOT_CONFIGURED =
  'no transcription endpoint is configured (set TESSERA_TRANSCRIPTION_URL and TESSERA_TRANSCRIPTION_MODEL, or the profile’s extra_config.inference_services.transcription_url)';
export const CAPTIONING_NOT_CONFIGURED =
  'no captioning endpoint is configured (set TESSERA_CAPTION_URL and TESSERA_CAPTION_MODEL, or the profile’s extra_config.inference_services.caption_url)';

/**
 * The profile's settings win field by field over the environment's. The environment's API key goes only to the
 * environment's URL, never to one a profile chose.
 */
export function resolveMediaServices(
  override: MediaInferenceServices = {},
  env: MediaEnv = mediaEnv,
): ResolvedMediaServices {
  const common = { timeoutS: env.inferenceTimeoutS, attempts: env.inferenceAttempts };
  const endpoint = (
    service: 'transcription' | 'caption',
    url: string | undefined,
    model: string | undefined,
    envUrl: string | undefined,
    envModel: string | undefined,
    envKey: string | undefined,
  ): EndpointOptions | undefined => {
    const baseURL = url ?? envUrl;
    if (!baseURL) return undefined;
    const chosen = model ?? envModel;
    if (!chosen) {
      throw new Error(
        `extra_config.inference_services.${service}_url is set without ${service}_model, and TESSERA_${service.toUpperCase()}_MODEL is unset`,
      );
    }
    return { baseURL, model: chosen, ...(url ? {} : envKey ? { apiKey: envKey } : {}), ...common };
  };
  const transcription = endpoint(
    'transcription',
    override.transcription_url,
    override.transcription_model,
    env.transcriptionUrl,
    env.transcriptionModel,
    env.transcriptionApiKey,
  );
  const captioning = endpoint(
    'caption',
    override.caption_url,
    override.caption_model,
    env.captionUrl,
    env.captionModel,
    env.captionApiKey,
  );
  const video = override.video_embed_url ?? env.videoEmbedUrl;
  const audio = override.audio_embed_url ?? env.audioEmbedUrl;
  const pooling = override.visual_pooling_url ?? env.visualPoolingUrl;
  return {
    ...(transcription && {
      transcription: {
        ...transcription,
        ...(override.transcription_language ? { language: override.transcription_language } : {}),
      },
    }),
    ...(captioning && { captioning }),
    ...(video && { videoEmbed: { url: video } }),
    ...(audio && { audioEmbed: { url: audio } }),
    ...(pooling && {
      visualPooling: {
        url: pooling,
        model: override.visual_pooling_model ?? env.visualPoolingModel,
      },
    }),
  };
}

/** The adapters of the configured services; a service without a URL is absent. */
export function createMediaServices(services: ResolvedMediaServices): {
  transcriber?: TranscriptionClient;
  captioner?: Captioner;
  videoEmbedder?: EmbeddingSidecar;
  audioEmbedder?: EmbeddingSidecar;
  visualEncoder?: VisualPoolingEncoder;
} {
  return {
    ...(services.transcription && { transcriber: new OpenAITranscriptionClient(services.transcription) }),
    ...(services.captioning && { captioner: new OpenAICaptioner(services.captioning) }),
    ...(services.videoEmbed && {
      videoEmbedder: new EmbeddingSidecar({ url: services.videoEmbed.url, kind: 'video', dim: 768 }),
    }),
    ...(services.audioEmbed && {
      audioEmbedder: new EmbeddingSidecar({ url: services.audioEmbed.url, kind: 'audio' }),
    }),
    ...(services.visualPooling && { visualEncoder: new VisualPoolingEncoder(services.visualPooling) }),
  };
}
