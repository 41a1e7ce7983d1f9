/** What the configuration records need, built once per process. */
import type { KeyedSerializer } from '@tessera/core';
import type { TenancyDeps } from '@tessera/tenancy';
import type { ConfigCache } from './cache';
import type { ConfigStore } from './store';

export interface ConfigDeps {
  store: ConfigStore;
  /** The tenant guard of the tenant routes, and tenants' tiers for the LLM client. */
  tenancy: TenancyDeps;
  cache: ConfigCache;
  /** Writes of one record from this process, one at a time (writers of other processes retry instead). */
  writes: KeyedSerializer;
  now: () => number;
}
