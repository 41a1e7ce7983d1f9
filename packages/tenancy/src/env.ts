/** Settings of the tenancy domain. */
import { z } from 'zod';

const schema = z.object({
  /** Comma-separated base schemas a new tenant gets when its create names none. */
  TESSERA_DEFAULT_BASE_SCHEMAS: z.string().min(1).default('video_frames'),
  /** Seconds a tenant create may hold its `creating` record before another caller may roll it back. */
  TESSERA_TENANT_CREATE_LEASE_SECONDS: z.coerce.number().positive().default(60),
});

const parsed = schema.safeParse(process.env);
if (!parsed.success) {
  throw new Error(
    `Invalid tenancy settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
  );
}

export const tenancyEnv = {
  defaultBaseSchemas: parsed.data.TESSERA_DEFAULT_BASE_SCHEMAS.split(',')
    .map((s) => s.trim())
    .filter(Boolean),
  createLeaseMs: parsed.data.TESSERA_TENANT_CREATE_LEASE_SECONDS * 1000,
};
