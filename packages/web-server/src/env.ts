/** Settings of the web client server (document 3's limits; clarifications' names and defaults). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

/** The built client of this repository's `web/` workspace. */
export const defaultClientDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../web/dist',
);

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** The runtime's base URL, including any ingress prefix; the server calls it directly. */
  TESSERA_RUNTIME_URL: z.string().url().default('http://localhost:28000'),
  /**
   * Runtime routes served at their own base URL (`{"POST /ag-ui/{agent}": "https://…"}`): in AWS, the
   * response-streaming routes are function URLs, not routes of the HTTP API. Default: none.
   */
  TESSERA_RUNTIME_STREAM_URLS: z
    .string()
    .default('{}')
    .transform((text, ctx) => {
      try {
        return z.record(z.string().regex(/^[A-Z]+ \/\S*$/), z.string().url()).parse(JSON.parse(text));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'a JSON object of "METHOD /path" to base URLs' });
        return z.NEVER;
      }
    }),
  /** Lifetime of the harness keys minted for tenants' runs, in seconds. */
  TESSERA_WEB_HARNESS_KEY_TTL_S: z.coerce.number().int().min(1).max(604_800).default(3600),
  /** The built client (`npm run build -w web`); served for every path outside the API. */
  TESSERA_WEB_CLIENT_DIR: z.string().min(1).default(defaultClientDir),
});

export type WebSettings = ReturnType<typeof readWebEnv>;

/** Parses the web server's settings from `source` (process.env by default); throws naming a bad one. */
export function readWebEnv(source: Record<string, string | undefined> = process.env) {
  return parseEnv('web server', schema, source);
}

export const webEnv = readWebEnv();

/**
 * The environment the client build runs in: this process's, in production mode (a NODE_ENV inherited from a
 * test runner, `test`, would make Vite bundle React's development build).
 */
export function clientBuildEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env, NODE_ENV: 'production' };
}
