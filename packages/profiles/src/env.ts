/** Settings of the profiles domain. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const env = parseEnv(
  'profiles',
  z.object({
    /**
     * Seconds a tenant's view of its profiles (for search and ingestion) stays cached in a process. A change
     * through this process is seen at once; a profile named but not in the view is looked up again.
     */
    TESSERA_PROFILE_CACHE_SECONDS: z.coerce.number().min(0).max(3600).default(2),
  }),
);

export const profilesEnv = { cacheMs: env.profileCacheSeconds * 1000 };
