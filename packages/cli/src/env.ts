/** Settings of the CLI, parsed once at load so a bad value fails at start. Flags override them. */
import { parseEnv, type Settings } from '@tessera/core';
import { z } from 'zod';

export const DEFAULT_RUNTIME_URL = 'http://localhost:28000';

const schema = z.object({
  /** Base URL of the runtime (`npm start` listens on port 28000). */
  TESSERA_RUNTIME_URL: z.url().default(DEFAULT_RUNTIME_URL),
  /** Tenant used when a command gets no `--tenant`. */
  TESSERA_TENANT_ID: z.string().min(1).optional(),
});

export type CliEnv = Settings<z.infer<typeof schema>>;

/** Parses the `TESSERA_*` variables of `source`; an empty variable counts as unset. */
export function parseCliEnv(source: Record<string, string | undefined>): CliEnv {
  return parseEnv('CLI', schema, source);
}

export const cliEnv = parseEnv('CLI', schema);

/** The AWS side of the in-process commands (`tessera provision`). */
const awsSchema = z.object({
  AWS_ENDPOINT_URL: z.url().optional(),
  /** The local runtime's data directory, whose lock file names its emulators. */
  TESSERA_DATA_DIR: z.string().min(1).default('.tessera'),
});

export const awsEnv = parseEnv('CLI', awsSchema);

/** Sets AWS variables for the SDK of this process (it reads them when a client is made). */
export function setAwsVariables(variables: Record<string, string>): void {
  for (const [name, value] of Object.entries(variables)) process.env[name] = value;
}
