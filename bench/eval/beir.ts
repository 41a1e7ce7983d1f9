/**
 * Public relevance-judged collections in BEIR's layout (`corpus.jsonl[.gz]`, `queries.jsonl`,
 * `qrels/test.tsv`), read where they are kept: never copied into the repository.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface BeirDocument {
  id: string;
  title: string;
  text: string;
}

export type Split = 'dev' | 'test';

export interface BeirQuery {
  id: string;
  text: string;
  split: Split;
  /** Judged documents with their grade (> 0 relevant; 0 judged not relevant). */
  relevance: Map<string, number>;
}

export interface BeirCollection {
  name: string;
  dir: string;
  documents: BeirDocument[];
  /** Only the queries that qrels judge (the BEIR convention), in the order of `queries.jsonl`. */
  queries: BeirQuery[];
  /** Whether grades go beyond 0/1 (nDCG then uses them as gains). */
  graded: boolean;
}

/** Share of a collection's judged queries in the development split. */
export const DEV_SHARE = 0.5;

/**
 * A query's split: the first 32 bits of SHA-256(`<collection>/<query id>`) as a fraction of 2^32, below
 * `DEV_SHARE` → dev, else test. Independent of order, file layout and of the other queries, so a query
 * never changes split when a collection grows, and the same on every machine.
 */
export function splitOf(collection: string, queryId: string): Split {
  const digest = createHash('sha256').update(`${collection}/${queryId}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < DEV_SHARE ? 'dev' : 'test';
}

const isCollection = (dir: string) =>
  (existsSync(path.join(dir, 'corpus.jsonl.gz')) || existsSync(path.join(dir, 'corpus.jsonl'))) &&
  existsSync(path.join(dir, 'queries.jsonl')) &&
  existsSync(path.join(dir, 'qrels', 'test.tsv'));

/** The collection folders under `root`, by name. */
export function discoverCollections(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => statSync(path.join(root, name)).isDirectory() && isCollection(path.join(root, name)))
    .sort();
}

/**
 * Where the collections are: `explicit` (an option or `TESSERA_EVAL_DATASETS`) when given, else the first
 * `shared/datasets` beside the repository root or one of its ancestors (`../shared/datasets` for a clone
 * next to `shared/`, further up for a worktree nested deeper).
 */
export function datasetsRoot(repoRoot: string, explicit?: string): string {
  if (explicit) return path.resolve(explicit);
  for (let dir = path.resolve(repoRoot, '..'); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'datasets');
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return path.resolve(repoRoot, '../shared/datasets');
  }
}

function jsonLines(file: string): Record<string, unknown>[] {
  const raw = file.endsWith('.gz')
    ? gunzipSync(readFileSync(file)).toString('utf8')
    : readFileSync(file, 'utf8');
  return raw
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

export function loadCollection(dir: string, name = path.basename(dir)): BeirCollection {
  const corpusFile = existsSync(path.join(dir, 'corpus.jsonl.gz'))
    ? path.join(dir, 'corpus.jsonl.gz')
    : path.join(dir, 'corpus.jsonl');
  const documents = jsonLines(corpusFile).map((row) => ({
    id: String(row._id),
    title: text(row.title),
    text: text(row.text),
  }));

  const judged = new Map<string, Map<string, number>>();
  const [header, ...lines] = readFileSync(path.join(dir, 'qrels', 'test.tsv'), 'utf8').split('\n');
  if (!header?.startsWith('query-id')) throw new Error(`${dir}/qrels/test.tsv lacks its header line`);
  let graded = false;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const [queryId, docId, score] = line.split('\t');
    const grade = Number(score);
    if (!queryId || !docId || !Number.isFinite(grade)) throw new Error(`Bad qrels line in ${dir}: ${line}`);
    if (grade > 1) graded = true;
    const relevance = judged.get(queryId) ?? new Map<string, number>();
    judged.set(queryId, relevance);
    relevance.set(docId, grade);
  }

  const queries = jsonLines(path.join(dir, 'queries.jsonl')).flatMap((row) => {
    const id = String(row._id);
    const relevance = judged.get(id);
    return relevance ? [{ id, text: text(row.text), split: splitOf(name, id), relevance }] : [];
  });
  return { name, dir, documents, queries, graded };
}
