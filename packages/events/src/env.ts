/** Settings of the task event streams. */
import { z } from 'zod';

const schema = z.object({
  /** Seconds without an event after which a stream sends a `: heartbeat` comment. */
  TESSERA_SSE_HEARTBEAT_SECONDS: z.coerce.number().positive().default(15),
});

const parsed = schema.safeParse(process.env);
if (!parsed.success) {
  throw new Error(
    `Invalid event settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
  );
}
export const eventsEnv = { heartbeatMs: parsed.data.TESSERA_SSE_HEARTBEAT_SECONDS * 1000 };
