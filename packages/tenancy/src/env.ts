/** Settings of the tenancy domain. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const schema = z.object({
  /** Comma-separated base schemas a new tenant gets when its create names none. */
  TESSERA_DEFAULT_BASE_SCHEMAS: z.string().min(1).default('video_frames'),
  /** Seconds a tenant create may hold its `creating` record before another caller may roll it back. */
  TESSERA_TENANT_CREATE_LEASE_SECONDS: z.coerce.number().positive().default(60),
});

const env = parseEnv('tenancy', schema);

export const tenancyEnv = {
  defaultBaseSchemas: env.defaultBaseSchemas
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
  createLeaseMs: env.tenantCreateLeaseSeconds * 1000,
};
