/**
 * Function bundle figures: the size of each handler module's bundle (`index.mjs`, and the whole code asset
 * with configs, threads and `.wasm` files) and its cold import time: the bundle copied outside the
 * repository and imported in a fresh Node process, LanceDB from the search layer on NODE_PATH, as Lambda
 * starts a function (median of RUNS processes, one at a time).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { fallbackHandler, queueWorkers, routes, schedules, splitHandler } from '@tessera/functions/routes';
import { bundleHandlerModules, moduleRouters, searchLayer } from '@tessera/stacks';

const run = promisify(execFile);
const RUNS = Number(process.env.BENCH_BUNDLE_RUNS ?? 5);
const MB = 1_000_000;

/** Prints the milliseconds `import()` of the bundle takes, and the process's own start-up before it. */
const IMPORT = `
// What Lambda's Node.js runtime defines before it loads a handler (response streaming).
globalThis.awslambda = { streamifyResponse: (handler) => handler, HttpResponseStream: { from: (stream) => stream } };
const started = performance.now();
await import(process.argv[1]);
process.stdout.write(JSON.stringify({ importMs: performance.now() - started, bootMs: started }));
`;

function directoryBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(path.join(entry.parentPath, entry.name)).size, 0);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function bundlesBench(): Promise<void> {
  const modules = [
    ...new Set(
      [
        fallbackHandler,
        ...routes.map((route) => route.handler),
        ...schedules.map((schedule) => schedule.handler),
        ...queueWorkers.map((worker) => worker.handler),
      ].map((handler) => splitHandler(handler).module),
    ),
  ];
  const built = performance.now();
  const bundles = bundleHandlerModules(modules, moduleRouters(routes));
  console.log(
    `Bundles of ${modules.length} handler modules ready in ${((performance.now() - built) / 1000).toFixed(1)} s`,
  );
  const layer = path.join(searchLayer().dir, 'nodejs', 'node_modules');
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bundle-bench-'));
  try {
    console.log(
      `${'module'.padEnd(22)} ${'index.mjs'.padStart(10)} ${'asset'.padStart(9)} ${'import'.padStart(9)} ${'process'.padStart(9)}`,
    );
    for (const [module, bundle] of bundles) {
      const copy = path.join(dir, module.replace('/', '-'));
      cpSync(bundle.dir, copy, { recursive: true });
      const imports: number[] = [];
      const processes: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        const { stdout } = await run(
          process.execPath,
          ['--input-type=module', '-e', IMPORT, pathToFileURL(path.join(copy, 'index.mjs')).href],
          {
            cwd: copy,
            env: {
              PATH: process.env.PATH ?? '',
              NODE_PATH: layer,
              NODE_NO_WARNINGS: '1',
              AWS_REGION: 'us-east-1',
              TESSERA_STAGE: 'bench',
              TESSERA_CONFIG_DIR: path.join(copy, 'configs'),
              TESSERA_SEARCH_URI: path.join(dir, 'lancedb'),
            },
          },
        );
        processes.push(performance.now() - started);
        imports.push((JSON.parse(stdout) as { importMs: number }).importMs);
      }
      console.log(
        `${module.padEnd(22)} ${`${(bundle.bytes / MB).toFixed(2)} MB`.padStart(10)} ${`${(directoryBytes(copy) / MB).toFixed(2)} MB`.padStart(9)} ${`${median(imports).toFixed(0)} ms`.padStart(9)} ${`${median(processes).toFixed(0)} ms`.padStart(9)}`,
      );
    }
    console.log(
      `(median of ${RUNS} fresh processes each; import: the bundle's import(), process: node start to exit)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
