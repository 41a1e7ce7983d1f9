/**
 * Profiles: processing configurations bound to a schema. The shipped catalog (`configs/profiles/*.json`), and
 * a tenant's view of it, where the tenant's own profiles come first and replace shipped ones of their name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Profiles, Search } from '@tessera/api';
import { z } from 'zod';
import { RankingStrategy } from './strategies';
import type { SchemaCatalog, SchemaTemplate } from './templates';

/** The strategy classes the ingestion pipeline implements, by the step they serve. */
export const STRATEGY_CLASSES = {
  segmentation: ['ParagraphChunker', 'SyntaxTreeChunker', 'FrameSegmentation', 'TranscriptSegmentation'],
  embedding: ['MultiVectorTextEmbedder', 'MultiVectorImageEmbedder', 'MultiVectorFrameEmbedder'],
} as const;
export const strategyClassNames = (): string[] => Object.values(STRATEGY_CLASSES).flat();

const StrategyClass = z.object({
  class: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const InferenceServices = z
  .looseObject({ pooling_url: z.string().url().optional(), embeddings_url: z.string().url().optional() })
  .default({});

export const Profile = z
  .object({
    profile_name: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/),
    type: Search.ProfileType,
    description: z.string().default(''),
    schema_name: z.string().min(1),
    embedding_model: z.string().min(1),
    embedding_type: Search.EmbeddingType,
    model_loader: Profiles.ModelLoader.optional(),
    process_type: Profiles.ProcessType.optional(),
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
    inference_services: InferenceServices,
  })
  .refine((p) => p.ranking_strategies.includes(p.default_ranking_strategy), {
    message: 'default_ranking_strategy must be one of ranking_strategies',
    path: ['default_ranking_strategy'],
  });
export type Profile = z.infer<typeof Profile>;

/** Text fields of `profile` that its schema does not index for full-text search. */
export function nonTextFields(profile: Pick<Profile, 'text_fields'>, template: SchemaTemplate): string[] {
  const fulltext = new Set(template.document.fields.filter((f) => f.fulltext).map((f) => f.name));
  return profile.text_fields.filter((f) => !fulltext.has(f));
}

/** Strategy classes of `profile` that the ingestion pipeline does not implement. */
export function unknownStrategyClasses(strategies: Record<string, { class: string }>): string[] {
  const known = new Set(strategyClassNames());
  return Object.values(strategies)
    .map((entry) => entry.class)
    .filter((name) => !known.has(name));
}

/** Where profiles are found by name or by extension: the shipped catalog, or a tenant's view of it. */
export interface ProfileSource {
  get(name: string): Profile | undefined;
  list(): Profile[];
  /** The profile ingestion uses for a file extension (`.md` → document_text_semantic). */
  forExtension(extension: string): Profile | undefined;
}

export class ProfileCatalog implements ProfileSource {
  private readonly profiles = new Map<string, Profile>();
  private readonly files = new Map<string, Record<string, unknown>>();

  constructor(profileDir: string, schemas: SchemaCatalog) {
    for (const file of readdirSync(profileDir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const raw = JSON.parse(readFileSync(path.join(profileDir, file), 'utf8'));
      const parsed = Profile.safeParse(raw);
      if (!parsed.success) {
        throw new Error(
          `Profile ${file} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      }
      const profile = parsed.data;
      const template = schemas.get(profile.schema_name);
      if (!template)
        throw new Error(`Profile ${file} names schema '${profile.schema_name}', which has no template`);
      const notText = nonTextFields(profile, template);
      if (notText.length > 0) {
        throw new Error(
          `Profile ${file}: text_fields ${notText.join(', ')} are not full-text fields of ${profile.schema_name}`,
        );
      }
      const unknown = unknownStrategyClasses(profile.strategies);
      if (unknown.length > 0) {
        throw new Error(`Profile ${file}: strategy classes ${unknown.join(', ')} are not implemented`);
      }
      this.profiles.set(profile.profile_name, profile);
      this.files.set(profile.profile_name, raw);
    }
  }

  get(name: string): Profile | undefined {
    return this.profiles.get(name);
  }

  list(): Profile[] {
    return [...this.profiles.values()];
  }

  forExtension(extension: string): Profile | undefined {
    const wanted = extension.toLowerCase();
    return this.list().find((profile) => profile.extensions.includes(wanted));
  }

  /** The shipped file of a profile, as written (a profile template). */
  file(name: string): Record<string, unknown> | undefined {
    const raw = this.files.get(name);
    return raw && structuredClone(raw);
  }

  /** Extensions of the shipped profiles of a type: a tenant profile of that type takes them by default. */
  extensionsOfType(type: Profile['type']): string[] {
    return [...new Set(this.list().flatMap((p) => (p.type === type ? p.extensions : [])))];
  }
}

/**
 * A tenant's profiles: its own first (by name), then the shipped ones it did not replace with its own of the
 * same name. An extension goes to the tenant's own profile that takes it before any shipped one.
 */
export class TenantProfiles implements ProfileSource {
  private readonly own: Map<string, Profile>;

  constructor(
    own: Profile[],
    private readonly shipped: ProfileSource,
  ) {
    this.own = new Map(
      [...own].sort((a, b) => a.profile_name.localeCompare(b.profile_name)).map((p) => [p.profile_name, p]),
    );
  }

  get(name: string): Profile | undefined {
    return this.own.get(name) ?? this.shipped.get(name);
  }

  list(): Profile[] {
    return [...this.own.values(), ...this.shipped.list().filter((p) => !this.own.has(p.profile_name))];
  }

  forExtension(extension: string): Profile | undefined {
    const wanted = extension.toLowerCase();
    return this.list().find((profile) => profile.extensions.includes(wanted));
  }

  /** Whether `name` is one of the tenant's own profiles. */
  isOwn(name: string): boolean {
    return this.own.has(name);
  }
}
