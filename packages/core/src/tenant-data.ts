/**
 * Data a tenant owns in a store. Every store that keeps data of a tenant (search tables aside, which the
 * tenancy domain drops itself) has an owner, which a tenant delete runs (see `TenantDataOwners` in
 * @tessera/tenancy for where owners are registered).
 */
import type { TenantId } from './ids';

export interface TenantDataOwner {
  /** What the store holds, for messages (`ingestion jobs, sources and uploads`). */
  readonly name: string;
  /**
   * Asks what still works for the tenant to stop (running tasks are told to cancel). Runs for every owner
   * before any purge; optional.
   */
  stop?(tenant: TenantId): Promise<void>;
  /**
   * Removes everything the store holds of the tenant. Runs while the tenant is marked deleted (its guard
   * refuses every request, so nothing new arrives), and again after a failure or a crash part-way, so every
   * step must be idempotent. Throws when it cannot finish now (something of the tenant still runs, a store
   * does not answer): the delete then answers 503 and a repeated DELETE runs it again.
   */
  purge(tenant: TenantId): Promise<void>;
}
