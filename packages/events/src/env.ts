/** Settings of the task event streams. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const schema = z.object({
  /** Seconds without an event after which a stream sends a `: heartbeat` comment. */
  TESSERA_SSE_HEARTBEAT_SECONDS: z.coerce.number().positive().default(15),
});

const env = parseEnv('event', schema);

export const eventsEnv = { heartbeatMs: env.sseHeartbeatSeconds * 1000 };
