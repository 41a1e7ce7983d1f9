/** Settings of the media package, parsed once at load so a bad value fails at start. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const schema = z
  .object({
    /** OpenAI-compatible base URL including `/v1`, serving `POST /audio/transcriptions`; unset → no transcript. */
    TESSERA_TRANSCRIPTION_URL: z.url().optional(),
    TESSERA_TRANSCRIPTION_MODEL: z.string().min(1).optional(),
    TESSERA_TRANSCRIPTION_API_KEY: z.string().min(1).optional(),
    /** OpenAI-compatible base URL including `/v1` of a vision chat model; unset → no captions. */
    TESSERA_CAPTION_URL: z.url().optional(),
    TESSERA_CAPTION_MODEL: z.string().min(1).optional(),
    TESSERA_CAPTION_API_KEY: z.string().min(1).optional(),
    /** Sidecars speaking `/embed/video` (or `/embed/audio`), `/embed/text` and `GET /health`. */
    TESSERA_VIDEO_EMBED_URL: z.url().optional(),
    TESSERA_AUDIO_EMBED_URL: z.url().optional(),
    /** Token-embedding pooling runner of the visual multi-vector model (`POST /pooling`). */
    TESSERA_VISUAL_POOLING_URL: z.url().optional(),
    TESSERA_VISUAL_POOLING_MODEL: z.string().min(1).default('vidore/colsmol-500m'),
    /** Seconds before a model-server request times out, and total attempts per request (1: no retry). */
    TESSERA_INFERENCE_TIMEOUT_S: z.coerce.number().positive().default(120),
    TESSERA_INFERENCE_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
    /** An ffmpeg binary to use instead of the one `@ffmpeg-installer/linux-x64` ships. */
    TESSERA_FFMPEG_PATH: z.string().min(1).optional(),
  })
  .superRefine((env, ctx) => {
    for (const service of ['TRANSCRIPTION', 'CAPTION'] as const) {
      if (env[`TESSERA_${service}_URL`] && !env[`TESSERA_${service}_MODEL`]) {
        ctx.addIssue({
          code: 'custom',
          path: [`TESSERA_${service}_MODEL`],
          message: `required when TESSERA_${service}_URL is set`,
        });
      }
    }
  });

/** Parses a set of variables (process.env by default); an empty variable counts as unset. */
export function parseMediaEnv(source?: Record<string, string | undefined>) {
  return parseEnv('media', schema, source);
}
export type MediaEnv = ReturnType<typeof parseMediaEnv>;

export const mediaEnv = parseMediaEnv();
