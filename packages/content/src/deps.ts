/** What content indexing and search need, built once per process. */
import type { MultiVectorEncoder } from '@tessera/encoders';
import type { ContentIndex, Profile, ProfileCatalog } from '@tessera/search';
import type { TenancyDeps } from '@tessera/tenancy';

export interface ContentDeps {
  tenancy: TenancyDeps;
  index: ContentIndex;
  profiles: ProfileCatalog;
  /** The multi-vector encoder of a profile: its own model server, the environment's, or the embedded one. */
  encoderFor(profile: Profile): MultiVectorEncoder;
}
