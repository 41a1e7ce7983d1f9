/**
 * Code extractor throughput: MB/s of source through `extractCode` on real Python, JavaScript, TypeScript and Go
 * files found on this machine, next to the bare web-tree-sitter parse rate of the same files in the same run.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type CodeLanguage, extractCode, languageOf, parseOnly } from '@tessera/extractors';

const root = path.resolve(import.meta.dirname, '..');
const MB = 1_000_000;
/** Bytes to take per language; Go takes whatever exists, which is little on a machine without Go installed. */
const BUDGET: Record<CodeLanguage, number> = {
  python: 3.5 * MB,
  javascript: 3.5 * MB,
  typescript: 3.5 * MB,
  go: 3.5 * MB,
};
/** No single package or top-level directory may fill a language's budget alone. */
const PER_GROUP = 0.1;
const MAX_FILE = 400_000;
const ROUNDS = 3;

interface SourceFile {
  path: string;
  language: CodeLanguage;
  text: string;
  bytes: number;
}

function* walk(dir: string): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of names) {
    const full = path.join(dir, name);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(full);
    } catch {
      continue;
    }
    if (stat.isDirectory()) {
      if (name !== '.cache' && name !== '.bin' && name !== '__pycache__') yield* walk(full);
    } else if (stat.isFile() && stat.size > 0 && stat.size <= MAX_FILE) {
      yield full;
    }
  }
}

/** The package (`@scope/name` or `name`) or first directory under the root a file belongs to. */
function groupOf(base: string, file: string): string {
  const parts = path.relative(base, file).split(path.sep);
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? '');
}

/** Hand-written code only: declaration files, minified bundles and generated tables are left out. */
function isHandWritten(file: string, text: string): boolean {
  if (/\.d\.[mc]?ts$/.test(file) || file.includes('.min.')) return false;
  return !text.split('\n').some((line) => line.length > 1000);
}

function goRoots(): string[] {
  const lib = existsSync('/usr/lib')
    ? readdirSync('/usr/lib').filter((name) => /^go(-[\d.]+)?$/.test(name))
    : [];
  return [
    '/usr/local/go/src',
    ...lib.map((name) => `/usr/lib/${name}/src`),
    '/root/go',
    '/usr/share',
    path.join(root, 'node_modules'),
  ];
}

function corpus(): SourceFile[] {
  const pythonRoots = existsSync('/usr/lib')
    ? readdirSync('/usr/lib')
        .filter((name) => /^python3\.\d+$/.test(name))
        .map((name) => `/usr/lib/${name}`)
    : [];
  const sources: Record<CodeLanguage, string[]> = {
    python: pythonRoots,
    javascript: [path.join(root, 'node_modules')],
    typescript: [path.join(root, 'node_modules')],
    go: goRoots(),
  };
  const files: SourceFile[] = [];
  const seen = new Set<string>();
  for (const [language, roots] of Object.entries(sources) as [CodeLanguage, string[]][]) {
    let taken = 0;
    for (const base of roots) {
      const perGroup = new Map<string, number>();
      for (const file of walk(base)) {
        if (taken >= BUDGET[language]) break;
        if (languageOf(file) !== language || seen.has(file)) continue;
        const group = groupOf(base, file);
        if ((perGroup.get(group) ?? 0) >= BUDGET[language] * PER_GROUP) continue;
        const text = readFileSync(file, 'utf8');
        if (!isHandWritten(file, text)) continue;
        const bytes = Buffer.byteLength(text);
        seen.add(file);
        perGroup.set(group, (perGroup.get(group) ?? 0) + bytes);
        taken += bytes;
        files.push({ path: file, language, text, bytes });
      }
    }
  }
  return files;
}

interface Tally {
  files: number;
  bytes: number;
  parseSeconds: number;
  extractSeconds: number;
  nodes: number;
  edges: number;
}

export async function extractBench(): Promise<void> {
  const files = corpus();
  const languages: CodeLanguage[] = ['python', 'javascript', 'typescript', 'go'];
  const tally = new Map<CodeLanguage, Tally>(
    languages.map((language) => [
      language,
      { files: 0, bytes: 0, parseSeconds: Infinity, extractSeconds: Infinity, nodes: 0, edges: 0 },
    ]),
  );
  for (const file of files) {
    const row = tally.get(file.language)!;
    row.files++;
    row.bytes += file.bytes;
  }
  // Grammars load on first use; the timings below are of warm parsers.
  for (const file of files.slice(0, 1)) await extractCode(file.path, file.text);
  for (const language of languages) {
    const first = files.find((file) => file.language === language);
    if (first) await parseOnly(first.path, first.text);
  }

  // Parse and extraction are timed file by file, in alternating order, so that both see the same machine
  // state (other processes, the wasm tier-up); each language keeps its best of a few rounds.
  for (let round = 0; round < ROUNDS; round++) {
    for (const language of languages) {
      const row = tally.get(language)!;
      let parseSeconds = 0;
      let extractSeconds = 0;
      let nodes = 0;
      let edges = 0;
      const mine = files.filter((file) => file.language === language);
      for (const [i, file] of mine.entries()) {
        for (const step of i % 2 === 0 ? ['parse', 'extract'] : ['extract', 'parse']) {
          const started = performance.now();
          if (step === 'parse') {
            await parseOnly(file.path, file.text);
            parseSeconds += (performance.now() - started) / 1000;
          } else {
            const result = await extractCode(file.path, file.text);
            extractSeconds += (performance.now() - started) / 1000;
            nodes += result.nodes.length;
            edges += result.edges.length;
          }
        }
      }
      row.parseSeconds = Math.min(row.parseSeconds, parseSeconds);
      row.extractSeconds = Math.min(row.extractSeconds, extractSeconds);
      row.nodes = nodes;
      row.edges = edges;
    }
  }

  const rate = (bytes: number, seconds: number) => (seconds > 0 ? bytes / MB / seconds : 0);
  const total = [...tally.values()].reduce(
    (sum, row) => ({
      files: sum.files + row.files,
      bytes: sum.bytes + row.bytes,
      parseSeconds: sum.parseSeconds + (row.files > 0 ? row.parseSeconds : 0),
      extractSeconds: sum.extractSeconds + (row.files > 0 ? row.extractSeconds : 0),
      nodes: sum.nodes + row.nodes,
      edges: sum.edges + row.edges,
    }),
    { files: 0, bytes: 0, parseSeconds: 0, extractSeconds: 0, nodes: 0, edges: 0 },
  );
  console.log(
    `\nCode extractor: ${total.files} files, ${(total.bytes / MB).toFixed(2)} MB of real code (best of ${ROUNDS} rounds)`,
  );
  console.log(
    `${'language'.padEnd(11)} ${'files'.padStart(6)} ${'MB'.padStart(6)} ${'parse MB/s'.padStart(11)} ${'extract MB/s'.padStart(13)} ${'ratio'.padStart(6)} ${'nodes'.padStart(7)} ${'edges'.padStart(7)}`,
  );
  for (const [language, row] of [...tally.entries(), ['total', total] as const]) {
    if (row.files === 0) {
      console.log(`${language.padEnd(11)} no files found`);
      continue;
    }
    const parse = rate(row.bytes, row.parseSeconds);
    const extract = rate(row.bytes, row.extractSeconds);
    console.log(
      `${language.padEnd(11)} ${String(row.files).padStart(6)} ${(row.bytes / MB).toFixed(2).padStart(6)} ${parse.toFixed(2).padStart(11)} ${extract.toFixed(2).padStart(13)} ${`${Math.round((100 * extract) / parse)}%`.padStart(6)} ${String(row.nodes).padStart(7)} ${String(row.edges).padStart(7)}`,
    );
  }
  const goRow = tally.get('go')!;
  if (goRow.bytes < MB) {
    console.log(
      `Go: only ${goRow.files} source files (${(goRow.bytes / 1000).toFixed(1)} kB) exist on this machine ` +
        `(searched ${goRoots().join(', ')}); install a Go toolchain's sources (Debian: golang-src) for a fuller sample.`,
    );
  }
  console.log('No .tsx or .jsx sources exist in node_modules; TSX parsing is covered by the unit tests.');
}
