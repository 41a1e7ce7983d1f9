/**
 * What the accuracy tests share: the facts compared (sets of `file\0source\0target` triples per relation and
 * `file\0segment` per definition), the extractor's facts of one file, precision and recall, the printed table,
 * and the oracle programs (Python's `ast`, Go's `go/parser` and `go/types`) run as child processes.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { CodeExtraction } from '@tessera/extractors';

export type Triple = string;

export interface OracleFacts {
  defines: Set<Triple>;
  imports: Set<Triple>;
  calls: Set<Triple>;
  /** `file\0segment` of each definition: `function:f`, `method:m`, `class:C`. */
  definitions: Set<Triple>;
}

export function emptyFacts(): OracleFacts {
  return { defines: new Set(), imports: new Set(), calls: new Set(), definitions: new Set() };
}

/** The graph keeps the ASCII letters and digits of a name's NFD form; a name without any is no node. */
export const usable = (name: string) => /[A-Za-z0-9]/.test(name.normalize('NFD'));

export const triple = (...parts: string[]): Triple => parts.join('\u0000');

/** Adds the extractor's edges and definition segments of one file to `found`. */
export function addExtraction(file: string, extraction: CodeExtraction, found: OracleFacts): void {
  for (const edge of extraction.edges) found[edge.relation].add(triple(file, edge.source, edge.target));
  for (const node of extraction.nodes) {
    for (const mention of node.mentions) {
      if (/^(function|method|class):/.test(mention.segment_id)) {
        found.definitions.add(triple(file, mention.segment_id));
      }
    }
  }
}

export interface Score {
  precision: number;
  recall: number;
  expected: number;
  found: number;
  missing: Triple[];
  extra: Triple[];
}

export function score(found: Set<Triple>, expected: Set<Triple>): Score {
  const missing = [...expected].filter((entry) => !found.has(entry));
  const extra = [...found].filter((entry) => !expected.has(entry));
  const hits = found.size - extra.length;
  return {
    precision: found.size === 0 ? 1 : hits / found.size,
    recall: expected.size === 0 ? 1 : hits / expected.size,
    expected: expected.size,
    found: found.size,
    missing,
    extra,
  };
}

export type Rows = Record<'definition nodes' | 'defines' | 'imports' | 'calls (by name)', Score>;

export function scoreAll(found: OracleFacts, expected: OracleFacts): Rows {
  return {
    'definition nodes': score(found.definitions, expected.definitions),
    defines: score(found.defines, expected.defines),
    imports: score(found.imports, expected.imports),
    'calls (by name)': score(found.calls, expected.calls),
  };
}

const readable = (entry: Triple) => entry.split('\u0000').join(' | ');
const percent = (value: number) => `${(100 * value).toFixed(2)}%`;

/** The table the accuracy tests print, with up to `examples` missed and extra facts per row. */
export function report(title: string, rows: Rows, examples = 5): string {
  return [
    title,
    'kind              oracle  extractor  precision  recall',
    ...Object.entries(rows).map(
      ([kind, row]) =>
        `${kind.padEnd(16)} ${String(row.expected).padStart(7)} ${String(row.found).padStart(10)}  ${percent(row.precision).padStart(9)}  ${percent(row.recall).padStart(7)}`,
    ),
    ...Object.entries(rows).flatMap(([kind, row]) => [
      ...row.missing.slice(0, examples).map((entry) => `  ${kind} missed: ${readable(entry)}`),
      ...row.extra.slice(0, examples).map((entry) => `  ${kind} extra:  ${readable(entry)}`),
    ]),
  ].join('\n');
}

/** One file's facts as an oracle program prints them, or why it left the file out. */
export interface OracleFile {
  file: string;
  module?: string;
  definitions?: string[];
  defines?: [string, string][];
  imports?: string[];
  calls?: [string, string][];
  skipped?: string;
  [extra: string]: unknown;
}

export interface OracleRun {
  /** The interpreter or toolchain that judged (`Python 3.11.7`, `go1.19.8`) and the library root sampled. */
  version: string;
  root: string;
  files: OracleFile[];
}

/** Adds an oracle's facts of one file under the key `file`. */
export function addOracleFile(file: string, facts: OracleFile, expected: OracleFacts): void {
  for (const segment of facts.definitions ?? []) expected.definitions.add(triple(file, segment));
  const add = (set: Set<Triple>, from: string, to: string) => {
    if (usable(from) && usable(to)) set.add(triple(file, from, to));
  };
  const module = facts.module ?? '';
  for (const name of facts.imports ?? []) add(expected.imports, module, name);
  for (const [from, to] of facts.defines ?? []) add(expected.defines, from, to);
  for (const [from, to] of facts.calls ?? []) add(expected.calls, from, to);
}

/**
 * Runs an oracle program and parses its lines. A missing program fails with `missing`, which says how to
 * install it: the accuracy tests must not pass by not running.
 */
export function runOracle(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; missing: string },
): Promise<OracleRun> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env, maxBuffer: 256 * 1024 * 1024, timeout: 600_000 },
      (error, stdout, stderr) => {
        if (error) {
          const code = (error as NodeJS.ErrnoException).code;
          reject(
            new Error(
              code === 'ENOENT'
                ? `${command} was not found on PATH. ${options.missing}`
                : `${command} ${args.join(' ')} failed: ${error.message}\n${stderr}`,
            ),
          );
          return;
        }
        const [head, ...rest] = stdout.split('\n').filter((line) => line.trim() !== '');
        if (!head) {
          reject(new Error(`${command} ${args.join(' ')} printed nothing\n${stderr}`));
          return;
        }
        const meta = JSON.parse(head) as { version: string; root: string };
        resolve({ ...meta, files: rest.map((line) => JSON.parse(line) as OracleFile) });
      },
    );
  });
}

/** `go` with a build cache even where HOME is unset, and no toolchain download (Go ≥ 1.21 would try). */
export function goEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '' };
  if (!env.GOCACHE && !env.HOME && !env.XDG_CACHE_HOME) {
    env.GOCACHE = path.join(os.tmpdir(), 'tessera-go-cache');
  }
  return env;
}
