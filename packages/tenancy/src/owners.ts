/**
 * The one place a tenant delete finds every store that holds data of the tenant.
 *
 * A store that keeps tenant data writes a `TenantDataOwner` (@tessera/core) next to its adapter: `stop`
 * asks what still runs for the tenant to stop, `purge` removes all of it, idempotently. The application
 * registers every owner, in the order their purges must run, in `functions/tenant-data.ts`; the functions
 * that remove tenants (tenant and organization deletes, the recovery of interrupted creates) take their
 * tenancy deps from there, and a removal refuses to run without them, so a store registered there is purged
 * by every delete. Later stores (profiles, configuration records, wiki pages, memories, conversations,
 * harness keys, scheduled jobs, messaging mappings) add theirs the same way.
 */
import type { TenantDataOwner, TenantId } from '@tessera/core';

export class TenantDataOwners {
  private readonly owners = new Map<string, TenantDataOwner>();

  /** Adds an owner, after those registered before; registering a name again replaces that owner. */
  register(owner: TenantDataOwner): this {
    this.owners.set(owner.name, owner);
    return this;
  }

  get names(): string[] {
    return [...this.owners.keys()];
  }

  /** Every owner's `stop`, then every owner's `purge`, in registration order. */
  async purge(tenant: TenantId): Promise<void> {
    for (const owner of this.owners.values()) await owner.stop?.(tenant);
    for (const owner of this.owners.values()) {
      try {
        await owner.purge(tenant);
      } catch (error) {
        throw new Error(`${owner.name}: ${(error as Error).message}`, { cause: error });
      }
    }
  }
}
