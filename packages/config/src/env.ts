/** Settings of the configuration records. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const env = parseEnv(
  'config',
  z.object({
    /**
     * Seconds a record read stays cached in a process. A write or rollback through this process is seen at
     * once (it updates the cache); other processes see it within this time. 0 reads the store every time.
     */
    TESSERA_CONFIG_CACHE_SECONDS: z.coerce.number().min(0).max(3600).default(2),
  }),
);

export const configEnv = { cacheMs: env.configCacheSeconds * 1000 };
