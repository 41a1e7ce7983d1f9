/**
 * Lambda code built from functions/: one esbuild bundle per handler module (cached by content), and the
 * layer that ships LanceDB, whose native module esbuild cannot inline.
 */
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Esbuild from 'esbuild';

// Paths come from resolving the workspace packages, not from this file's location: SST bundles
// sst.config.ts together with these stacks into one file at the repo root.
const resolve = createRequire(import.meta.url).resolve;
export const functionsDir = path.dirname(resolve('@tessera/functions/routes'));
const stacksDir = path.dirname(resolve('@tessera/stacks'));
const repoRoot = path.dirname(functionsDir);
export const configsDir = path.join(repoRoot, 'configs');

/** Where the Lambda runtime finds the configs copied into every bundle (`/var/task` is the code root). */
export const LAMBDA_CONFIG_DIR = '/var/task/configs';

/** Packages the layer ships: LanceDB, its Linux x64 binary, and Apache Arrow, which LanceDB loads too. */
const LAYER_ROOTS = ['@lancedb/lancedb', '@lancedb/lancedb-linux-x64-gnu', 'apache-arrow'];
/** Packages the handlers import that must come from the layer rather than be inlined. */
const LAYER_IMPORTS = ['@lancedb/lancedb', 'apache-arrow'];
/** Bump when the layer's layout changes, so the asset hash changes with it. */
const LAYER_FORMAT = 1;

/**
 * Worker-thread modules a handler starts from a file beside its own (`new URL('./<name>', import.meta.url)`):
 * each is bundled on its own and copied into every bundle that inlines the module that starts it.
 */
const THREAD_MODULES = [
  {
    file: path.join(repoRoot, 'packages/extractors/src/documents/compromise-worker.mjs'),
    startedBy: path.join(repoRoot, 'packages/extractors/src/documents/compromise.ts'),
  },
];

/**
 * Files a module reads from beside its own file in a bundle (`new URL('./<file>', import.meta.url)`): copied
 * into every bundle that inlines the module, and a changed file makes the bundle stale, as a changed source
 * does. The code extractor's tree-sitter runtime and grammars are `.wasm`.
 */
const ASSET_FILES = [
  {
    // The embedded lexical encoder's word vectors.
    files: () => [path.join(repoRoot, 'packages/encoders/data/glove-6b-100d-50k.i8')],
    loadedBy: path.join(repoRoot, 'packages/encoders/src/glove-lexical.ts'),
  },
  {
    files: () =>
      wasmOfPackages(path.join(repoRoot, 'packages/extractors'), /^(web-tree-sitter|tree-sitter-.+)$/),
    loadedBy: path.join(repoRoot, 'packages/extractors/src/parsers.ts'),
  },
];

/**
 * The `.wasm` files at the root of the dependencies of the package in `dir` whose names match: found here
 * rather than imported from the package's list (`@tessera/extractors/wasm-files`), since SST loads the
 * packages the root package.json lists as they are, and cannot load TypeScript. The bundle tests check
 * the two agree.
 */
function wasmOfPackages(dir: string, names: RegExp): string[] {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(manifest.dependencies ?? {})
    .filter((name) => names.test(name))
    .flatMap((name) => {
      const root = findPackageDir(name, dir);
      if (!root) throw new Error(`${name} is not installed; the code extractor's bundles need its .wasm`);
      return readdirSync(root)
        .filter((file) => file.endsWith('.wasm'))
        .map((file) => path.join(root, file));
    });
}

/** Reads the settings kept in Secrets Manager or SSM before a bundle's handler module loads (see writeEntries). */
const PRELUDE = '@tessera/platform/secrets';

/** The package whose `moduleRouter` builds a bundle's router export. */
const ROUTER_PACKAGE = '@tessera/http';

/**
 * The export of a bundle that serves its module's API routes, by the event's route key (`index.route`): one
 * function for the routes of a module. See bundleHandlerModules.
 */
export const ROUTER_EXPORT = 'route';

/** The API routes a module's router serves: each route key (`GET /wiki/topic/{slug}`) with its export. */
export type ModuleRoutes = Readonly<Record<string, string>>;

/** Lets CommonJS dependencies inlined into the ESM bundle call `require`. */
const BANNER =
  "import { createRequire as __tesseraCreateRequire } from 'node:module';" +
  'const require = __tesseraCreateRequire(import.meta.url);';

/**
 * Build outputs, named by their content so that runs of unchanged code reuse them and several processes
 * (parallel test files, a synth) can build at once. Safe to delete at any time.
 */
const cacheDir = path.join(repoRoot, 'node_modules', '.cache', 'tessera-stacks');
const STALE_BUNDLE_MS = 24 * 60 * 60 * 1000;

export interface HandlerBundle {
  /** Directory holding `index.mjs`, `configs/` and the files its modules load: the function's code asset. */
  dir: string;
  /** The bundle loads LanceDB or Arrow, so its function needs the search layer. */
  usesSearchLayer: boolean;
  /** Size of `index.mjs` in bytes. */
  bytes: number;
  /** The files esbuild read into `index.mjs`, relative to the repository root (`node_modules/zod/...`). */
  inputs: string[];
  /** The routes its ROUTER_EXPORT serves, when it has one. */
  routes?: ModuleRoutes;
}

/** One bundle to build: a module, and the routes of its router when it has one. */
interface BundleUnit {
  module: string;
  routes?: ModuleRoutes;
  /** Names its entry, output, manifest and build directory: the module's, and its routes' hash. */
  name: string;
}

/** The routes in route-key order, so that one table always gives the same entry and bundle. */
export function sortedRoutes(routes: ModuleRoutes): [string, string][] {
  return Object.entries(routes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function unitOf(module: string, routes: ModuleRoutes | undefined): BundleUnit {
  if (!routes || Object.keys(routes).length === 0) return { module, name: outName(module) };
  const hash = createHash('sha256')
    .update(JSON.stringify(sortedRoutes(routes)))
    .digest('hex');
  return { module, routes, name: `${outName(module)}-routes-${hash.slice(0, 16)}` };
}

/** What a later process needs to reuse a bundle: the bundle, and what it was built from. */
interface BundleManifest extends HandlerBundle {
  /** See buildSetup. */
  setup: string;
  /** Content hash of every file the bundle was built from: its inputs and those of the threads it ships. */
  sources: Record<string, string>;
}

export interface SearchLayerBuild {
  /** Directory holding `nodejs/node_modules/...`. */
  dir: string;
  /** Derived from the packages' versions: stable across machines, changes when a version does. */
  hash: string;
}

// esbuild's API refuses to run when bundled, and SST inlines every package the root package.json does not
// list, so load it at run time from the stacks package that depends on it.
let esbuildApi: typeof Esbuild | undefined;
function esbuild(): typeof Esbuild {
  esbuildApi ??= createRequire(path.join(stacksDir, 'package.json'))('esbuild') as typeof Esbuild;
  return esbuildApi;
}

/** Moves a finished build into place; when another process got there first, keeps theirs (same content). */
function publish(staging: string, dir: string): void {
  try {
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
    const now = new Date();
    utimesSync(dir, now, now); // in use again: see pruneStaleBundles
  }
}

function hashDirectory(dir: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) hash.update(path.relative(dir, file)).update('\0').update(readFileSync(file));
  return hash.digest('hex');
}

let shims: Map<string, string> | undefined;
/**
 * One CommonJS module per layer package that `require`s it with a non-literal argument, so esbuild leaves
 * the call to run time. Node's CommonJS resolution searches NODE_PATH, which holds the layer's
 * /opt/nodejs/node_modules (ESM resolution does not), and LanceDB and the handlers then share one Arrow.
 */
function layerShims(): Map<string, string> {
  if (!shims) {
    const dir = path.join(cacheDir, 'layer-imports');
    mkdirSync(dir, { recursive: true });
    shims = new Map(
      LAYER_IMPORTS.map((name) => {
        const file = path.join(dir, `${name.replace(/[@/]/g, '_')}.cjs`);
        const source = `const name = ${JSON.stringify(name)};\nmodule.exports = require(name);\n`;
        if (!existsSync(file) || readFileSync(file, 'utf8') !== source) {
          const staging = `${file}.${process.pid}`;
          writeFileSync(staging, source);
          renameSync(staging, file);
        }
        return [name, file];
      }),
    );
  }
  return shims;
}

const bundles = new Map<string, HandlerBundle>();

/**
 * Bundles each `functions/<module>.ts`: ESM `index.mjs` for Node 22 with `configs/` and the worker-thread
 * modules it starts beside it. A module `routers` gives routes to also exports ROUTER_EXPORT, which answers
 * each of those route keys with its export (`moduleRouter` of @tessera/http), so one function serves them
 * all. A bundle built before (by any process) from the same files and routes is reused; the others are built
 * in one esbuild run, which parses their shared dependencies once.
 */
export function bundleHandlerModules(
  modules: Iterable<string>,
  routers: ReadonlyMap<string, ModuleRoutes> = new Map(),
): Map<string, HandlerBundle> {
  const wanted = [...new Set(modules)].map((module) => unitOf(module, routers.get(module)));
  const hashes = new Map<string, string | undefined>();
  for (const unit of wanted) {
    if (bundles.has(unit.name)) continue;
    const reused = reuse(unit, hashes);
    if (reused) bundles.set(unit.name, reused);
  }
  const missing = wanted.filter((unit) => !bundles.has(unit.name));
  if (missing.length > 0) build(missing);
  return new Map(wanted.map((unit) => [unit.module, bundles.get(unit.name)!]));
}

let setup: string | undefined;
/**
 * What every bundle is built from besides its input files: this file (the build's options), esbuild's
 * version, the lock file (how imports resolve) and the configs copied into each bundle.
 */
function buildSetup(): string {
  setup ??= createHash('sha256')
    .update(readFileSync(path.join(stacksDir, 'bundle.ts')))
    .update('\0')
    .update(esbuild().version)
    .update('\0')
    .update(readFileSync(path.join(repoRoot, 'package-lock.json')))
    .update('\0')
    .update(hashDirectory(configsDir))
    .digest('hex');
  return setup;
}

function hashFile(file: string, hashes: Map<string, string | undefined>): string | undefined {
  if (!hashes.has(file)) {
    let hash: string | undefined;
    try {
      hash = createHash('sha256')
        .update(readFileSync(path.resolve(repoRoot, file)))
        .digest('hex');
    } catch {
      hash = undefined;
    }
    hashes.set(file, hash);
  }
  return hashes.get(file);
}

const manifestFile = (unit: BundleUnit) => path.join(cacheDir, 'manifests', `${unit.name}.json`);

/** The bundle a previous build left for `unit`, if every file it was built from is unchanged. */
function reuse(unit: BundleUnit, hashes: Map<string, string | undefined>): HandlerBundle | undefined {
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile(unit), 'utf8')) as BundleManifest;
  } catch {
    return undefined;
  }
  if (manifest.setup !== buildSetup() || !existsSync(path.join(manifest.dir, 'index.mjs'))) return undefined;
  for (const [file, hash] of Object.entries(manifest.sources)) {
    if (hashFile(file, hashes) !== hash) return undefined;
  }
  const now = new Date();
  utimesSync(manifest.dir, now, now); // in use again: see pruneStaleBundles
  const { dir, usesSearchLayer, bytes, inputs, routes } = manifest;
  return { dir, usesSearchLayer, bytes, inputs, ...(routes ? { routes } : {}) };
}

function remember(unit: BundleUnit, bundle: HandlerBundle, sources: string[]): void {
  const hashes = new Map<string, string | undefined>();
  const manifest: BundleManifest = {
    ...bundle,
    setup: buildSetup(),
    sources: Object.fromEntries(sources.map((file) => [file, hashFile(file, hashes) ?? ''])),
  };
  const file = manifestFile(unit);
  mkdirSync(path.dirname(file), { recursive: true });
  const staging = `${file}.${process.pid}`;
  writeFileSync(staging, JSON.stringify(manifest));
  renameSync(staging, file);
}

/** Writes `file` unless it already holds `text` (several processes may build at once). */
function writeIfChanged(file: string, text: string): void {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return;
  const staging = `${file}.${process.pid}`;
  writeFileSync(staging, text);
  renameSync(staging, file);
}

/**
 * The entry of each module's bundle, written under the cache (named by the module and its routes, so the
 * same table always gives the same entry): it imports the prelude first, then re-exports the handler module,
 * and adds the router of its routes when it has some. The prelude awaits resolveSecretSettings at its top
 * level, and esbuild lays the modules of an ESM bundle out one after the other in import order, so that await
 * holds back the handler module and everything it imports (every env.ts among them) until the secrets are in
 * the environment. Unbundled, ES modules would not wait for a sibling's await; the bundle tests run the built
 * bundles to hold this.
 */
function writeEntries(units: BundleUnit[]): Map<string, BundleUnit> {
  const dir = path.join(cacheDir, 'entries');
  mkdirSync(dir, { recursive: true });
  const prelude = path.join(dir, 'prelude.ts');
  writeIfChanged(
    prelude,
    `import { resolveSecretSettings } from '${PRELUDE}';\nawait resolveSecretSettings();\n`,
  );
  const entries = new Map<string, BundleUnit>();
  for (const unit of units) {
    const file = path.join(dir, `${unit.name}.ts`);
    const handlers = JSON.stringify(path.join(functionsDir, `${unit.module}.ts`));
    const lines = ["import './prelude';", `export * from ${handlers};`];
    if (unit.routes) {
      lines.push(
        `import { moduleRouter } from ${JSON.stringify(resolve(ROUTER_PACKAGE))};`,
        `import * as handlers from ${handlers};`,
        `export const ${ROUTER_EXPORT} = moduleRouter({`,
        ...sortedRoutes(unit.routes).map(
          ([key, name]) => `  ${JSON.stringify(key)}: handlers.${exportName(unit.module, name)},`,
        ),
        '});',
      );
    }
    writeIfChanged(file, `${lines.join('\n')}\n`);
    entries.set(file, unit);
  }
  return entries;
}

/** `name` when it can be written as a property access, as every handler's export name can. */
function exportName(module: string, name: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(name))
    throw new Error(`functions/${module}.ts: '${name}' is not an export name`);
  return name;
}

/**
 * Throws when a router's route names an export its module lacks (the bundle's exports are the module's and
 * the router), or names the router itself: the module would otherwise fail only when it loads in Lambda.
 */
function checkRouter(unit: BundleUnit, exports: readonly string[]): void {
  if (!unit.routes) return;
  const exported = new Set(exports);
  const routes = sortedRoutes(unit.routes);
  const router = routes.filter(([, name]) => name === ROUTER_EXPORT);
  if (router.length > 0) {
    throw new Error(
      `functions/${unit.module}.ts: ${router.map(([key]) => key).join(', ')} cannot be served by an export named '${ROUTER_EXPORT}', the name of its bundle's router`,
    );
  }
  const missing = routes.filter(([, name]) => !exported.has(name));
  if (missing.length > 0) {
    throw new Error(
      `functions/${unit.module}.ts does not export the handler of ${missing.map(([key, name]) => `${key} (${name})`).join(', ')}`,
    );
  }
}

function build(units: BundleUnit[]): void {
  const aliases = layerShims();
  const shimFiles = new Set(aliases.values());
  const entries = writeEntries(units);
  const bundlesDir = path.join(cacheDir, 'bundles');
  mkdirSync(bundlesDir, { recursive: true });
  const scratch = mkdtempSync(path.join(cacheDir, 'build-'));
  try {
    const result = esbuild().buildSync({
      entryPoints: [
        ...[...entries].map(([file, unit]) => ({ in: file, out: `${unit.name}/index` })),
        ...THREAD_MODULES.map(({ file }) => ({ in: file, out: `threads/${path.basename(file, '.mjs')}` })),
      ],
      outdir: scratch,
      outExtension: { '.js': '.mjs' },
      absWorkingDir: repoRoot,
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      banner: { js: BANNER },
      alias: Object.fromEntries(aliases),
      legalComments: 'none',
      metafile: true,
      logLevel: 'silent',
    });
    const outputs = Object.values(result.metafile.outputs);
    const threadInputs = new Map(
      THREAD_MODULES.map(({ file }) => {
        const output = outputs.find((o) => o.entryPoint && path.resolve(repoRoot, o.entryPoint) === file);
        return [file, Object.keys(output?.inputs ?? {})];
      }),
    );
    for (const output of outputs) {
      const unit = output.entryPoint && entries.get(path.resolve(repoRoot, output.entryPoint));
      if (!unit) continue;
      checkRouter(unit, output.exports);
      const built = path.join(scratch, unit.name);
      cpSync(configsDir, path.join(built, 'configs'), { recursive: true });
      const inputs = Object.keys(output.inputs);
      const absolute = new Set(inputs.map((input) => path.resolve(repoRoot, input)));
      const sources = [...inputs];
      for (const { file, startedBy } of THREAD_MODULES) {
        if (!absolute.has(startedBy)) continue;
        cpSync(path.join(scratch, 'threads', path.basename(file)), path.join(built, path.basename(file)));
        sources.push(...(threadInputs.get(file) ?? []));
      }
      for (const { files, loadedBy } of ASSET_FILES) {
        if (!absolute.has(loadedBy)) continue;
        for (const file of files()) {
          cpSync(file, path.join(built, path.basename(file)));
          sources.push(path.relative(repoRoot, file));
        }
      }
      const dir = path.join(bundlesDir, `${outName(unit.module)}-${hashDirectory(built).slice(0, 16)}`);
      publish(built, dir);
      const bundle: HandlerBundle = {
        dir,
        usesSearchLayer: [...absolute].some((input) => shimFiles.has(input)),
        bytes: statSync(path.join(dir, 'index.mjs')).size,
        inputs,
        ...(unit.routes ? { routes: unit.routes } : {}),
      };
      bundles.set(unit.name, bundle);
      remember(unit, bundle, [...new Set(sources)]);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const unbuilt = units.filter((unit) => !bundles.has(unit.name));
  if (unbuilt.length > 0) {
    throw new Error(`esbuild produced no bundle for ${unbuilt.map((unit) => unit.module).join(', ')}`);
  }
  pruneStaleBundles(bundlesDir);
}

/** Drops bundles no build has produced or reused for a day, so the cache does not grow with every edit. */
function pruneStaleBundles(bundlesDir: string): void {
  const now = Date.now();
  for (const entry of readdirSync(bundlesDir)) {
    const dir = path.join(bundlesDir, entry);
    if (now - statSync(dir).mtimeMs > STALE_BUNDLE_MS) rmSync(dir, { recursive: true, force: true });
  }
}

/** `http/tenants` → `http-tenants`. */
function outName(module: string): string {
  return module.replace(/[^A-Za-z0-9_-]/g, '-');
}

interface LayerPackage {
  name: string;
  version: string;
  source: string;
  /** Path under the layer's node_modules, mirroring npm's layout so nested versions resolve the same. */
  target: string;
}

/** Node's lookup: `node_modules/<name>` in `from` or the nearest ancestor that has it. */
function findPackageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The layer roots and their run-time dependencies (not optional ones, not `@types/*`). */
function layerPackages(): LayerPackage[] {
  const rootModules = path.join(repoRoot, 'node_modules');
  const found = new Map<string, LayerPackage>();
  const pending = LAYER_ROOTS.map((name) => ({ name, from: functionsDir, neededBy: 'the search layer' }));
  for (let next = pending.shift(); next; next = pending.shift()) {
    const source = findPackageDir(next.name, next.from);
    if (!source) throw new Error(`${next.name} is not installed; ${next.neededBy} needs it`);
    if (found.has(source)) continue;
    const manifest = JSON.parse(readFileSync(path.join(source, 'package.json'), 'utf8')) as {
      version: string;
      dependencies?: Record<string, string>;
    };
    const relative = path.relative(rootModules, source);
    const target = relative.startsWith('..') || path.isAbsolute(relative) ? next.name : relative;
    found.set(source, { name: next.name, version: manifest.version, source, target });
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      if (!dependency.startsWith('@types/')) {
        pending.push({ name: dependency, from: source, neededBy: next.name });
      }
    }
  }
  return [...found.values()].sort((a, b) => a.target.localeCompare(b.target));
}

let searchLayerBuild: SearchLayerBuild | undefined;

/**
 * The search layer's content: the packages copied from node_modules, once, into a cache directory named by
 * their versions (the Linux binary alone is ~180 MB).
 */
export function searchLayer(): SearchLayerBuild {
  if (searchLayerBuild) return searchLayerBuild;
  const packages = layerPackages();
  const hash = createHash('sha256')
    .update(JSON.stringify([LAYER_FORMAT, packages.map(({ target, version }) => [target, version])]))
    .digest('hex');
  const dir = path.join(cacheDir, `search-layer-${hash.slice(0, 16)}`);
  if (!existsSync(dir)) {
    mkdirSync(cacheDir, { recursive: true });
    const staging = mkdtempSync(`${dir}.partial-`);
    for (const { source, target } of packages) {
      cpSync(source, path.join(staging, 'nodejs', 'node_modules', target), {
        recursive: true,
        // Nested node_modules are copied as packages of their own, and only when needed at run time.
        filter: (file) => !path.relative(source, file).split(path.sep).includes('node_modules'),
      });
    }
    publish(staging, dir);
  }
  searchLayerBuild = { dir, hash };
  return searchLayerBuild;
}
