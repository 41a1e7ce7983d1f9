/**
 * Each tenant's view of the profiles it can use (its own, then the shipped ones it did not replace), as
 * search and ingestion read them: cached per process for a short time, replaced at once by a change through
 * this process, and read again on demand (a profile named but not found).
 */
import { log } from '@tessera/core';
import { type Profile, TenantProfiles } from '@tessera/search';
import type { ProfilesDeps } from './deps';
import { effectiveProfile } from './effective';

interface Cached {
  view: Promise<TenantProfiles>;
  readAt: number;
}

/** Tenants whose view is kept at most; beyond, the least recently loaded goes. */
const MAX_TENANTS = 10_000;

export class ProfileViews {
  private readonly views = new Map<string, Cached>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxTenants = MAX_TENANTS,
  ) {}

  get(tenantId: string, load: () => Promise<TenantProfiles>, fresh = false): Promise<TenantProfiles> {
    const cached = this.views.get(tenantId);
    if (cached && !fresh && this.now() - cached.readAt < this.ttlMs) return cached.view;
    const view = load();
    const entry = { view, readAt: this.now() };
    this.views.delete(tenantId);
    this.views.set(tenantId, entry);
    if (this.views.size > this.maxTenants) this.views.delete(this.views.keys().next().value!);
    view.catch(() => {
      if (this.views.get(tenantId) === entry) this.views.delete(tenantId);
    });
    return view;
  }

  /** The tenant's profiles changed: the next read loads them. */
  forget(tenantId: string): void {
    this.views.delete(tenantId);
  }
}

/** The profiles `tenantFullId` can use; `fresh` reads its own again whatever the cache holds. */
export function tenantProfiles(
  deps: ProfilesDeps,
  tenantFullId: string,
  options: { fresh?: boolean } = {},
): Promise<TenantProfiles> {
  return deps.views.get(
    tenantFullId,
    async () => {
      const own: Profile[] = [];
      for (const stored of await deps.store.list(tenantFullId)) {
        const effective = effectiveProfile(stored, deps.shipped, deps.tenancy.catalog);
        if (effective.profile) own.push(effective.profile);
        // Checked at create; only a template removed since can make it unusable.
        else
          log.warn('profile unusable', {
            tenant: tenantFullId,
            profile: stored.profile_name,
            errors: effective.errors,
          });
      }
      return new TenantProfiles(own, deps.shipped);
    },
    options.fresh,
  );
}
