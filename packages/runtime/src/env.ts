/** Settings of the local runtime. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);

const schema = z.object({
  TESSERA_PORT: port.default(28000),
  TESSERA_HOST: z.string().min(1).default('127.0.0.1'),
  /** One endpoint for all emulated AWS services, for other processes (`AWS_ENDPOINT_URL`). */
  TESSERA_EMULATOR_PORT: port.default(28001),
  /** `aws`: use real AWS (no emulators). Unset: emulators, unless `AWS_ENDPOINT_URL` points elsewhere. */
  TESSERA_CLOUD: z.enum(['local', 'aws']).default('local'),
  AWS_ENDPOINT_URL: z.string().url().optional(),
  AWS_ACCESS_KEY_ID: z.string().optional(),
  /** `off` disables the local scheduler (schedules still run once at start when they ask to). */
  TESSERA_SCHEDULER: z.enum(['on', 'off']).default('on'),
  /** `off` stops this process from consuming queues (another runtime or Lambda does). */
  TESSERA_QUEUE_WORKERS: z.enum(['on', 'off']).default('on'),
  /** Visibility timeout of messages the local pollers receive; default each worker's timeout. */
  TESSERA_QUEUE_VISIBILITY_SECONDS: z.coerce.number().int().min(0).max(43_200).optional(),
  /** Timeout of the local queue workers' functions; default each one's own from the route table. */
  TESSERA_QUEUE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(900).optional(),
  /** `off`: `npm start` serves the runtime alone, without the web client on `PORT` (see @tessera/web-server). */
  TESSERA_WEB: z.enum(['on', 'off']).default('on'),
});

export const runtimeEnv = parseEnv('runtime', schema);

/** Emulators start only when no AWS endpoint is configured and the cloud is not AWS. */
export const usesEmulators = runtimeEnv.cloud === 'local' && runtimeEnv.awsEndpointUrl === undefined;

/** The pinned SDK runs on Node 20; its notice that future releases need Node 22 is not for every start. */
export function silenceSdkNodeNotice(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}
