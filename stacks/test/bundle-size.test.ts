/**
 * Every function bundle: one copy of each package, and a size within its budget.
 *
 * A budget is the size of `index.mjs` a bundle may reach, about 10% above its size when last set. When a
 * change makes a bundle outgrow it on purpose (a new dependency the functions need), raise that bundle's
 * entry in BUDGETS_MB below in the same commit and say why in its message; a new handler module needs an
 * entry of its own. Sizes are printed on every run.
 */
import {
  fallbackHandler,
  jobRunFunction,
  queueWorkers,
  routes,
  schedules,
  splitHandler,
  stepFunctions,
  telegramFunctions,
} from '@tessera/functions/routes';
import { bundleHandlerModules, type HandlerBundle, moduleRouters } from '@tessera/stacks';
import { beforeAll, describe, expect, it } from 'vitest';

/** Decimal megabytes, as file listings and the AWS console count them. */
const MB = 1_000_000;

/** Largest `index.mjs` of each handler module, in MB. */
const BUDGETS_MB: Record<string, number> = {
  'http/fallback': 0.99,
  'http/health': 3.95,
  'http/organizations': 4.5,
  'http/tenants': 4.5,
  'http/config': 3.45,
  'http/profiles': 3.45,
  'http/schemas': 3.45,
  'http/search': 3.5,
  'http/graph': 3.5,
  'http/events': 3.45,
  'http/openapi': 1.9,
  'http/ingestion': 8.6,
  'workers/maintenance': 4.4,
  'workers/ingestion': 8.55,
  'http/provisioning': 4.15,
  'workers/provisioning': 4.05,
  'http/agents': 5.05,
  'http/memories': 3.45,
  'http/wiki': 3.5,
  'http/jobs': 5.65,
  'workers/jobs': 5.55,
  'workers/agent-runs': 4.1,
  'http/chat': 5.25,
  'http/ag-ui': 5.45,
  'http/knowledge': 5.35,
  'http/messaging': 3.5,
  'workers/telegram': 3.55,
};

/** Every handler module the route table names: routes, the fallback, schedules and queue workers. */
const modules = [
  ...new Set(
    [
      fallbackHandler,
      ...routes.map((route) => route.handler),
      ...schedules.map((schedule) => schedule.handler),
      ...queueWorkers.map((worker) => worker.handler),
      ...stepFunctions.map((fn) => fn.handler),
      jobRunFunction.handler,
      ...Object.values(telegramFunctions).map((fn) => fn.handler),
    ].map((handler) => splitHandler(handler).module),
  ),
];

/**
 * The install directories of each package a bundle inlines: `node_modules/a/node_modules/zod` and
 * `node_modules/zod` are two copies of zod.
 */
function packageCopies(inputs: readonly string[]): Map<string, Set<string>> {
  const copies = new Map<string, Set<string>>();
  for (const input of inputs) {
    const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input.replaceAll('\\', '/'));
    if (!match) continue;
    const [, dir, name] = match as unknown as [string, string, string];
    if (name === '.cache') continue; // the layer's import shims (see bundle.ts)
    copies.set(name, (copies.get(name) ?? new Set()).add(dir));
  }
  return copies;
}

describe('packageCopies', () => {
  it('tells nested copies of a package apart, scoped names included', () => {
    const copies = packageCopies([
      'node_modules/zod/v4/core/core.js',
      'node_modules/zod/v4/classic/schemas.js',
      'node_modules/@aws-sdk/core/node_modules/@smithy/signature-v4/dist-cjs/index.js',
      'node_modules/@smithy/signature-v4/dist-cjs/index.js',
      'packages/core/node_modules/zod/index.js',
      'packages/core/src/index.ts',
    ]);
    expect([...copies.get('zod')!]).toEqual(['node_modules/zod', 'packages/core/node_modules/zod']);
    expect(copies.get('@smithy/signature-v4')?.size).toBe(2);
    expect(copies.has('@aws-sdk/core')).toBe(false);
  });
});

describe('function bundles', () => {
  let bundles: Map<string, HandlerBundle>;

  beforeAll(() => {
    // As the stack ships them: a module of API routes with its router.
    bundles = bundleHandlerModules(modules, moduleRouters(routes));
    const lines = [...bundles].map(
      ([module, bundle]) =>
        `  ${module.padEnd(22)} ${(bundle.bytes / MB).toFixed(2).padStart(6)} MB` +
        ` (budget ${BUDGETS_MB[module]?.toFixed(2) ?? 'none'} MB)`,
    );
    process.stdout.write(`Function bundles (index.mjs):\n${lines.join('\n')}\n`);
  });

  it('has a budget for every handler module of the route table, and none for a module it lacks', () => {
    expect(Object.keys(BUDGETS_MB).sort()).toEqual([...modules].sort());
  });

  it('keeps every bundle within its budget', () => {
    const over = [...bundles]
      .filter(([module, bundle]) => bundle.bytes > (BUDGETS_MB[module] ?? 0) * MB)
      .map(
        ([module, bundle]) => `${module}: ${(bundle.bytes / MB).toFixed(2)} MB > ${BUDGETS_MB[module]} MB`,
      );
    expect(over).toEqual([]);
  });

  it('holds one copy of each package in every bundle', () => {
    const duplicated: string[] = [];
    for (const [module, bundle] of bundles) {
      for (const [name, dirs] of packageCopies(bundle.inputs)) {
        if (dirs.size > 1) duplicated.push(`${module}: ${name} from ${[...dirs].sort().join(', ')}`);
      }
    }
    expect(duplicated).toEqual([]);
  });
});
