/** The production wiring of content indexing and search. */
import { createMultiVectorEncoder, type MultiVectorEncoder } from '@tessera/encoders';
import { platformEnv } from '@tessera/platform';
import { profiles, tenantProfiles } from '@tessera/profiles';
import { LanceContentIndex, lanceConnection, type Profile } from '@tessera/search';
import { tenancy } from '@tessera/tenancy';
import type { ContentDeps } from './deps';

let deps: ContentDeps | undefined;

export function content(): ContentDeps {
  if (deps) return deps;
  const tenancyDeps = tenancy();
  const profilesDeps = profiles();
  const encoders = new Map<string, MultiVectorEncoder>();
  deps = {
    tenancy: tenancyDeps,
    index: new LanceContentIndex(lanceConnection(platformEnv.searchUri)),
    profiles: profilesDeps.shipped,
    profilesFor: (tenantFullId, options) => tenantProfiles(profilesDeps, tenantFullId, options),
    encoderFor(profile: Profile) {
      const url = profile.inference_services.pooling_url;
      const key = `${url ?? ''}|${profile.embedding_model}`;
      let encoder = encoders.get(key);
      if (!encoder) {
        encoder = createMultiVectorEncoder(url ? { url, model: profile.embedding_model } : undefined);
        encoders.set(key, encoder);
      }
      return encoder;
    },
  };
  return deps;
}
