/** What the profiles domain needs, built once per process. */
import type { KeyedSerializer } from '@tessera/core';
import type { ProfileCatalog } from '@tessera/search';
import type { TenancyDeps } from '@tessera/tenancy';
import type { ProfileStore } from './store';
import type { ProfileViews } from './views';

export interface ProfilesDeps {
  store: ProfileStore;
  /** The tenant guard, the schema templates, the registry and the search backend (deploys and drops). */
  tenancy: TenancyDeps;
  /** The shipped profiles (`configs/profiles`). */
  shipped: ProfileCatalog;
  /** Each tenant's view of its profiles, cached. */
  views: ProfileViews;
  /** Writes of one profile from this process, one at a time (writers of other processes retry instead). */
  writes: KeyedSerializer;
  now: () => number;
}
