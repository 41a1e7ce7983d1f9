/**
 * Serving the built client: hashed assets with a year-long immutable cache (precompressed copies when the
 * browser takes them), the entry page (never cached) for every other path the client routes itself.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';

/** The context variable naming the file a request was answered with. */
const SERVED = 'clientFile';

export type ClientEnv = { Variables: { [SERVED]?: string } };

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Paths that name a file (an extension in the last segment) are not client routes. */
const FILE_LIKE = /\/[^/]*\.[^/]*$/;

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export function serveClient(app: Hono<ClientEnv>, clientDir: string): void {
  const entry = path.join(clientDir, 'index.html');

  const files = serveStatic({
    root: clientDir,
    precompressed: true,
    onFound: (file, c) => {
      c.set(SERVED, file);
    },
  });
  app.use('*', async (c, next) => {
    const response = await files(c, next);
    const file = c.get(SERVED);
    if (!response || !file) return response;
    const hashed = file.startsWith(path.join(clientDir, 'assets') + path.sep);
    response.headers.set('cache-control', hashed ? IMMUTABLE : 'no-cache');
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
    return response;
  });

  app.get('*', async (c) => {
    if (FILE_LIKE.test(c.req.path)) return c.json({ detail: 'Not Found' }, 404);
    let html: string;
    try {
      html = await readFile(entry, 'utf8');
    } catch {
      return c.text(
        `The web client is not built (no ${entry}). Run \`npm run build -w web\`, or start with \`npm run web\`, which builds it.\n`,
        503,
      );
    }
    return c.html(html, 200, { 'cache-control': 'no-cache', ...SECURITY_HEADERS });
  });
}
