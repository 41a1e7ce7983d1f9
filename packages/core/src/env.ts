/** Settings of the core package, parsed once at load so a bad value fails at start. */
import { z } from 'zod';

const schema = z.object({
  TESSERA_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** Comma-separated crash points for recovery tests (see failpoints.ts). */
  TESSERA_FAILPOINTS: z.string().default(''),
});

const parsed = schema.safeParse(process.env);
if (!parsed.success) {
  throw new Error(
    `Invalid core settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
  );
}
export const coreEnv = parsed.data;
