/** The configuration store port: append-only versions of each record, per tenant and kind. */
import { z } from 'zod';

/** One stored version of a record. */
export const ConfigVersion = z.object({
  version: z.number().int().min(1),
  value: z.record(z.string(), z.unknown()),
  created_at: z.number().int(),
  created_by: z.string(),
  /** Set on a version a rollback wrote: the version whose value it holds. */
  rolled_back_from: z.number().int().optional(),
});
export type ConfigVersion = z.infer<typeof ConfigVersion>;

export interface ConfigStore {
  /** The newest version of `kind` for `tenantId` (the system tenant for the system configuration). */
  latest(tenantId: string, kind: string): Promise<ConfigVersion | undefined>;
  /** One version, if it exists. */
  get(tenantId: string, kind: string, version: number): Promise<ConfigVersion | undefined>;
  /** Versions newest first, at most `limit`. */
  history(tenantId: string, kind: string, limit: number): Promise<ConfigVersion[]>;
  /**
   * Stores `entry` as version `entry.version` of the record, only if that version does not exist yet (a
   * conditional write): false when another writer stored it first. Versions are never changed afterwards.
   */
  append(tenantId: string, kind: string, entry: ConfigVersion): Promise<boolean>;
  /** Removes every version of every record of the tenant; answers how many were removed. */
  purgeTenant(tenantId: string): Promise<number>;
}
