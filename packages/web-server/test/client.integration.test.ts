/** Serving the built client: cached hashed assets, precompressed copies, the entry page for client routes. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientBuildIsFresh } from '../src/client-build';
import { startWebServer, type WebServer } from '../src/server';
import { closedPort } from './fake-runtime';

let dir: string;
let web: WebServer;
const script = `console.log(${JSON.stringify('x'.repeat(4000))});`;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tessera-web-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Tessera</title><div id="root"></div>');
  writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), script);
  writeFileSync(path.join(dir, 'assets', 'index-abc123.js.gz'), gzipSync(script));
  writeFileSync(path.join(dir, 'robots.txt'), 'User-agent: *\n');
  web = await startWebServer({
    port: 0,
    host: '127.0.0.1',
    runtimeUrl: await closedPort(),
    harnessKeyTtlS: 60,
    clientDir: dir,
  });
});

afterAll(async () => {
  await web?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('client serving', () => {
  it('answers the entry page, never cached, for the client routes', async () => {
    for (const route of ['/', '/search', '/upload?tenant=acme:prod', '/graph/deep/link']) {
      const answer = await fetch(`${web.url}${route}`);
      expect(answer.status, route).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(answer.headers.get('cache-control')).toBe('no-cache');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await answer.text()).toContain('<div id="root">');
    }
  });

  it('serves hashed assets with a year-long immutable cache, gzip-compressed when the browser takes it', async () => {
    const plain = await fetch(`${web.url}/assets/index-abc123.js`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-type')).toMatch(/javascript/);
    expect(await plain.text()).toBe(script);

    const compressed = await fetch(`${web.url}/assets/index-abc123.js`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(compressed.headers.get('content-encoding')).toBe('gzip');
    expect(Number(compressed.headers.get('content-length'))).toBeLessThan(script.length / 10);
    expect(await compressed.text()).toBe(script);
  });

  it('serves other files revalidated, and 404 for a missing file rather than the entry page', async () => {
    const robots = await fetch(`${web.url}/robots.txt`);
    expect(robots.headers.get('cache-control')).toBe('no-cache');
    const missing = await fetch(`${web.url}/assets/index-missing.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Not Found' });
  });

  it('does not serve files outside the client directory', async () => {
    for (const attempt of [
      '/..%2f..%2fetc%2fpasswd',
      '/assets/..%2f..%2f..%2fetc%2fpasswd',
      '/%2e%2e/%2e%2e/etc/passwd',
    ]) {
      const answer = await fetch(`${web.url}${attempt}`);
      expect(await answer.text(), attempt).not.toContain('root:');
    }
  });

  it('answers 503 naming the build command when the client is not built', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'tessera-web-empty-'));
    const bare = await startWebServer({
      port: 0,
      host: '127.0.0.1',
      runtimeUrl: await closedPort(),
      harnessKeyTtlS: 60,
      clientDir: empty,
    });
    try {
      const answer = await fetch(`${bare.url}/search`);
      expect(answer.status).toBe(503);
      expect(await answer.text()).toContain('npm run build -w web');
      expect((await fetch(`${bare.url}/healthz`)).status).toBe(200);
    } finally {
      await bare.stop();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('clientBuildIsFresh', () => {
  it('is fresh only while the build is at least as new as every source', () => {
    const webDir = mkdtempSync(path.join(tmpdir(), 'tessera-webdir-'));
    try {
      mkdirSync(path.join(webDir, 'src', 'pages'), { recursive: true });
      writeFileSync(path.join(webDir, 'index.html'), '');
      writeFileSync(path.join(webDir, 'src', 'pages', 'a.tsx'), '');
      const dist = path.join(webDir, 'dist');
      expect(clientBuildIsFresh(webDir, dist)).toBe(false);
      mkdirSync(dist);
      writeFileSync(path.join(dist, 'index.html'), '');
      const now = Date.now() / 1000;
      utimesSync(path.join(webDir, 'index.html'), now - 100, now - 100);
      utimesSync(path.join(webDir, 'src', 'pages', 'a.tsx'), now - 100, now - 100);
      utimesSync(path.join(dist, 'index.html'), now - 50, now - 50);
      expect(clientBuildIsFresh(webDir, dist)).toBe(true);
      utimesSync(path.join(webDir, 'src', 'pages', 'a.tsx'), now, now);
      expect(clientBuildIsFresh(webDir, dist)).toBe(false);
    } finally {
      rmSync(webDir, { recursive: true, force: true });
    }
  });
});
