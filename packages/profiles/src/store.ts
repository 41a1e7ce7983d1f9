/** The profile store port: a tenant's profiles, every version of each kept. */
import { Profiles, Search } from '@tessera/api';
import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

/** One version of a tenant's profile as stored. */
export const StoredProfile = z.object({
  tenant_id: z.string(),
  profile_name: z.string(),
  type: Search.ProfileType,
  schema_name: z.string(),
  embedding_model: z.string(),
  embedding_type: Search.EmbeddingType,
  description: z.string(),
  strategies: JsonObject,
  pipeline_config: JsonObject,
  model_specific: JsonObject.nullable(),
  schema_config: JsonObject,
  model_loader: Profiles.ModelLoader.nullable(),
  process_type: Profiles.ProcessType.nullable(),
  extra_config: JsonObject,
  version: z.number().int().min(1),
  /** When version 1 was written (epoch ms); every version carries it. */
  created_at: z.number().int(),
  /** When this version was written (epoch ms). */
  updated_at: z.number().int(),
});
export type StoredProfile = z.infer<typeof StoredProfile>;

export interface ProfileStore {
  /** The newest version of a profile. */
  latest(tenantId: string, name: string): Promise<StoredProfile | undefined>;
  /** Every version of a profile, newest first. */
  versions(tenantId: string, name: string): Promise<StoredProfile[]>;
  /** The newest version of each of the tenant's profiles, by name. */
  list(tenantId: string): Promise<StoredProfile[]>;
  /**
   * Stores `profile` as its version `profile.version`, only if that version does not exist yet (a conditional
   * write): false when another writer stored it first. Versions are never changed afterwards.
   */
  append(profile: StoredProfile): Promise<boolean>;
  /** Removes every version of a profile; answers how many there were. */
  remove(tenantId: string, name: string): Promise<number>;
  /** Removes every profile of the tenant; answers how many versions there were. */
  purgeTenant(tenantId: string): Promise<number>;
}
