/** The shipped profile catalog (`configs/profiles/*.json`): processing configurations bound to a schema. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Search } from '@tessera/api';
import { z } from 'zod';
import { RankingStrategy } from './strategies';
import type { SchemaCatalog } from './templates';

const StrategyClass = z.object({
  class: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const Profile = z
  .object({
    profile_name: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/),
    type: Search.ProfileType,
    description: z.string().default(''),
    schema_name: z.string().min(1),
    embedding_model: z.string().min(1),
    embedding_type: Search.EmbeddingType,
    model_loader: z.enum(['colbert', 'colpali', 'colqwen', 'xclip']).optional(),
    process_type: z.enum(['direct_video', 'frame_based', 'video_chunks']).optional(),
    /** Full-text (BM25) fields of the schema that text ranking reads. */
    text_fields: z.array(z.string().min(1)).min(1),
    /** File extensions ingestion routes to this profile. */
    extensions: z.array(z.string().regex(/^\.[a-z0-9]+$/)).default([]),
    strategies: z.record(z.string(), StrategyClass).default({}),
    pipeline_config: z.record(z.string(), z.unknown()).default({}),
    ranking_strategies: z.array(RankingStrategy).min(1),
    default_ranking_strategy: RankingStrategy,
    /**
     * Model servers of this profile; unset ones fall back to the environment, then to embedded models. The
     * media services' fields (`transcription_url`, `caption_url`, …) are kept for @tessera/media to read.
     */
    inference_services: z
      .looseObject({ pooling_url: z.string().url().optional(), embeddings_url: z.string().url().optional() })
      .default({}),
  })
  .refine((p) => p.ranking_strategies.includes(p.default_ranking_strategy), {
    message: 'default_ranking_strategy must be one of ranking_strategies',
  });
export type Profile = z.infer<typeof Profile>;

export class ProfileCatalog {
  private readonly profiles = new Map<string, Profile>();

  constructor(profileDir: string, schemas: SchemaCatalog) {
    for (const file of readdirSync(profileDir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const parsed = Profile.safeParse(JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')));
      if (!parsed.success) {
        throw new Error(
          `Profile ${file} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      }
      const profile = parsed.data;
      const template = schemas.get(profile.schema_name);
      if (!template)
        throw new Error(`Profile ${file} names schema '${profile.schema_name}', which has no template`);
      const fulltext = new Set(template.document.fields.filter((f) => f.fulltext).map((f) => f.name));
      const notText = profile.text_fields.filter((f) => !fulltext.has(f));
      if (notText.length > 0) {
        throw new Error(
          `Profile ${file}: text_fields ${notText.join(', ')} are not full-text fields of ${profile.schema_name}`,
        );
      }
      this.profiles.set(profile.profile_name, profile);
    }
  }

  get(name: string): Profile | undefined {
    return this.profiles.get(name);
  }

  list(): Profile[] {
    return [...this.profiles.values()];
  }

  /** The profile ingestion uses for a file extension (`.md` → document_text_semantic). */
  forExtension(extension: string): Profile | undefined {
    const wanted = extension.toLowerCase();
    return this.list().find((profile) => profile.extensions.includes(wanted));
  }
}
