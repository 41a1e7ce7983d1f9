/** What content indexing and search need, built once per process. */
import type { MultiVectorEncoder } from '@tessera/encoders';
import type { ContentIndex, Profile, ProfileCatalog, ProfileSource } from '@tessera/search';
import type { TenancyDeps } from '@tessera/tenancy';

export interface ContentDeps {
  tenancy: TenancyDeps;
  index: ContentIndex;
  /** The shipped profiles. */
  profiles: ProfileCatalog;
  /**
   * The profiles a tenant can use: its own, then the shipped ones it did not replace (cached briefly;
   * `fresh` reads the tenant's own again).
   */
  profilesFor(tenantFullId: string, options?: { fresh?: boolean }): Promise<ProfileSource>;
  /** The multi-vector encoder of a profile: its own model server, the environment's, or the embedded one. */
  encoderFor(profile: Profile): MultiVectorEncoder;
}
