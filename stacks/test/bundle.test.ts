import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { WASM_FILES } from '@tessera/extractors/wasm-files';
import { bundleHandlerModules, ROUTER_EXPORT, searchLayer } from '@tessera/stacks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Imports the health bundle in a fresh Node process and prints its answer to GET /health. */
const script = `
const { health } = await import(process.argv[1]);
const event = {
  version: '2.0', routeKey: 'GET /health', rawPath: '/health', rawQueryString: '', headers: {},
  requestContext: { http: { method: 'GET', path: '/health' } }, isBase64Encoded: false,
};
process.stdout.write((await health(event, {})).body);
`;

describe('bundleHandlerModules', () => {
  // A copy outside the repo, where no node_modules above it can supply LanceDB: only NODE_PATH can.
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-bundle-test-'));
    cpSync(bundleHandlerModules(['http/health']).get('http/health')!.dir, dir, { recursive: true });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function runHealth(nodePath?: string): Promise<{ failed: boolean; stdout: string; stderr: string }> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      NODE_NO_WARNINGS: '1',
      TESSERA_CONFIG_DIR: path.join(dir, 'configs'),
      TESSERA_SEARCH_URI: path.join(dir, 'lancedb'),
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      // Nothing listens there: the AWS probes fail fast, which this test does not look at.
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      ...(nodePath ? { NODE_PATH: nodePath } : {}),
    };
    const entry = pathToFileURL(path.join(dir, 'index.mjs')).href;
    return new Promise((done) => {
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script, entry],
        { env, cwd: dir },
        (error, stdout, stderr) => done({ failed: error !== null, stdout, stderr }),
      );
    });
  }

  it('runs a handler whose LanceDB and Arrow come from the search layer on NODE_PATH, as in Lambda', async () => {
    const { stdout, stderr } = await runHealth(path.join(searchLayer().dir, 'nodejs', 'node_modules'));
    expect(stderr).toBe('');
    expect(JSON.parse(stdout).services.search_backend).toMatchObject({ status: 'ok' });
  });

  it('leaves LanceDB and Arrow out of the bundle', async () => {
    const { failed, stderr } = await runHealth();
    expect(failed).toBe(true);
    expect(stderr).toMatch(/Cannot find module '(@lancedb\/lancedb|apache-arrow)'/);
  });

  it('ships the entity tagging thread beside the handlers that start it, and the thread tags on its own', async () => {
    const bundles = bundleHandlerModules(['workers/ingestion', 'http/health']);
    expect(existsSync(path.join(bundles.get('http/health')!.dir, 'compromise-worker.mjs'))).toBe(false);
    const copy = mkdtempSync(path.join(tmpdir(), 'tessera-thread-test-'));
    try {
      // Alone in a directory with no node_modules above it: the thread's bundle holds the tagger itself.
      cpSync(
        path.join(bundles.get('workers/ingestion')!.dir, 'compromise-worker.mjs'),
        path.join(copy, 'thread.mjs'),
      );
      const worker = new Worker(path.join(copy, 'thread.mjs'));
      try {
        const replies: unknown[] = [];
        const tagged = new Promise<{ tagged: { selections: { people: { text: string }[][] } } }>(
          (resolve, reject) => {
            worker.on('message', (reply) => {
              replies.push(reply);
              if ('tagged' in reply || 'error' in reply) resolve(reply);
            });
            worker.on('error', reject);
          },
        );
        worker.postMessage({
          text: 'Marie Curie moved to Paris in 1891.',
          options: { selectionsOnly: true },
        });
        const reply = await tagged;
        expect(replies[0]).toEqual({ ready: true });
        expect(
          reply.tagged.selections.people.map((terms) => terms.map((term) => term.text).join(' ')),
        ).toEqual(['Marie Curie']);
      } finally {
        await worker.terminate();
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('ships the word vectors of the embedded encoder beside the handlers that encode text', () => {
    const bundles = bundleHandlerModules(['http/search', 'workers/ingestion', 'http/fallback']);
    const name = 'glove-6b-100d-50k.i8';
    const shipped = readFileSync(path.join(import.meta.dirname, '../../packages/encoders/data', name));
    for (const module of ['http/search', 'workers/ingestion']) {
      const dir = bundles.get(module)!.dir;
      expect(readFileSync(path.join(dir, name)).equals(shipped)).toBe(true);
      // The encoder looks for the file beside the bundle's own module.
      expect(readFileSync(path.join(dir, 'index.mjs'), 'utf8')).toMatch(/["']\.\/glove-6b-100d-50k\.i8["']/);
    }
    expect(existsSync(path.join(bundles.get('http/fallback')!.dir, name))).toBe(false);
  });

  it('ships the tree-sitter runtime and every grammar the extractor loads beside the bundles that parse code, and only there', () => {
    const bundles = bundleHandlerModules(['workers/ingestion', 'http/ingestion', 'http/search']);
    const wanted = WASM_FILES.map((wasm) => wasm.file).sort();
    for (const module of ['workers/ingestion', 'http/ingestion']) {
      const shipped = readdirSync(bundles.get(module)!.dir).filter((file) => file.endsWith('.wasm'));
      expect(shipped.sort(), module).toEqual(wanted);
    }
    expect(readdirSync(bundles.get('http/search')!.dir).filter((file) => file.endsWith('.wasm'))).toEqual([]);
  });

  describe('with the routes of a module', () => {
    const routes = { 'GET /openapi.json': 'openapi', 'GET /docs/openapi.json': 'openapi' };
    /** Imports a bundle in a fresh Node process and prints what its router answers each route key. */
    const routerScript = `
const bundle = await import(process.argv[1]);
const answers = [];
for (const routeKey of JSON.parse(process.argv[2])) {
  const event = { version: '2.0', routeKey, rawPath: '/x', rawQueryString: '', headers: {},
    requestContext: { http: { method: 'GET', path: '/x' } }, isBase64Encoded: false };
  const answer = await bundle[${JSON.stringify(ROUTER_EXPORT)}](event, { awsRequestId: 'r1' });
  answers.push({ routeKey, status: answer.statusCode, body: JSON.parse(answer.body) });
}
process.stdout.write(JSON.stringify(answers));
`;

    it('exports a router that answers each route key with its handler, and 404 for any other', async () => {
      const bundle = bundleHandlerModules(['http/openapi'], new Map([['http/openapi', routes]])).get(
        'http/openapi',
      )!;
      expect(bundle.routes).toEqual(routes);
      const copy = mkdtempSync(path.join(tmpdir(), 'tessera-router-test-'));
      try {
        cpSync(bundle.dir, copy, { recursive: true });
        const keys = ['GET /openapi.json', 'GET /docs/openapi.json', 'GET /health', 'POST /openapi.json'];
        const stdout = await new Promise<string>((done, fail) =>
          execFile(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              routerScript,
              pathToFileURL(path.join(copy, 'index.mjs')).href,
              JSON.stringify(keys),
            ],
            {
              env: {
                PATH: process.env.PATH ?? '',
                NODE_NO_WARNINGS: '1',
                TESSERA_CONFIG_DIR: path.join(copy, 'configs'),
              },
              cwd: copy,
            },
            (error, out, stderr) => (error ? fail(new Error(stderr)) : done(out)),
          ),
        );
        const answers = JSON.parse(stdout) as {
          routeKey: string;
          status: number;
          body: Record<string, unknown>;
        }[];
        expect(answers.map(({ routeKey, status }) => [routeKey, status])).toEqual([
          ['GET /openapi.json', 200],
          ['GET /docs/openapi.json', 200],
          ['GET /health', 404],
          ['POST /openapi.json', 404],
        ]);
        expect(answers[0]!.body.openapi).toMatch(/^3\./);
        expect(answers[2]!.body).toEqual({ detail: 'Not Found' });
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    });

    it('builds the same bundle from the same routes in any order, and another without them', () => {
      const reversed = Object.fromEntries(Object.entries(routes).reverse());
      const [a, b, plain] = [routes, reversed, undefined].map(
        (table) =>
          bundleHandlerModules(['http/openapi'], new Map(table ? [['http/openapi', table]] : [])).get(
            'http/openapi',
          )!,
      );
      expect(b!.dir).toBe(a!.dir);
      expect(plain!.dir).not.toBe(a!.dir);
      expect(plain!.routes).toBeUndefined();
      expect(readFileSync(path.join(plain!.dir, 'index.mjs'), 'utf8')).not.toContain('moduleRouter');
    });

    it('refuses a route whose handler the module does not export, or one named as the router', () => {
      expect(() =>
        bundleHandlerModules(['http/openapi'], new Map([['http/openapi', { 'GET /openapi.json': 'spec' }]])),
      ).toThrow(/functions\/http\/openapi\.ts does not export the handler of GET \/openapi\.json \(spec\)/);
      expect(() =>
        bundleHandlerModules(
          ['http/openapi'],
          new Map([['http/openapi', { 'GET /openapi.json': ROUTER_EXPORT }]]),
        ),
      ).toThrow(/cannot be served by an export named 'route'/);
      expect(() =>
        bundleHandlerModules(['http/openapi'], new Map([['http/openapi', { 'GET /openapi.json': 'a-b' }]])),
      ).toThrow(/'a-b' is not an export name/);
    });
  });

  it('marks only bundles that load LanceDB as needing the search layer', () => {
    const bundles = bundleHandlerModules(['http/health', 'http/fallback']);
    expect(bundles.get('http/health')?.usesSearchLayer).toBe(true);
    expect(bundles.get('http/fallback')?.usesSearchLayer).toBe(false);
  });
});
