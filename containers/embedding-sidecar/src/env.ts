/** Settings of the embedding sidecar. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const schema = z.object({
  /** What the sidecar embeds besides text: `video` (`POST /embed/video`) or `audio` (`POST /embed/audio`). */
  EMBED_KIND: z.enum(['video', 'audio']),
  /** The Infinity server holding the model (`infinity_emb v2 --model-id …`), beside the sidecar in its task. */
  INFINITY_URL: z.url().default('http://127.0.0.1:7997'),
  /** The model id Infinity serves: a joint image–text (video) or audio–text model. */
  EMBED_MODEL: z.string().min(1),
  /** The model's pinned revision (Infinity's `--revision`), stored with every vector. */
  EMBED_MODEL_REVISION: z.string().min(1),
  /** Frames a video is sampled at, evenly over its length; their vectors are averaged. */
  EMBED_VIDEO_FRAMES: z.coerce.number().int().min(1).max(64).default(8),
  /** Seconds of audio embedded from the start of a clip. */
  EMBED_AUDIO_SECONDS: z.coerce.number().positive().max(600).default(30),
  /** Largest request body, bytes (base64 media included). */
  EMBED_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024 * 1024),
  PORT: z.coerce.number().int().min(0).max(65_535).default(8000),
  HOST: z.string().min(1).default('0.0.0.0'),
});

export function parseSidecarEnv(source?: Record<string, string | undefined>) {
  return parseEnv('embedding sidecar', schema, source);
}
export type SidecarEnv = ReturnType<typeof parseSidecarEnv>;
