/**
 * Ranking quality of one BEIR collection: its documents fed into a tenant's table of a document profile the
 * way content indexing feeds them (the profile's text fields, encoded by the configured multi-vector
 * encoder), then every strategy run for every judged query.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { embeddingText } from '@tessera/content';
import { parseTenantId, tenantSchemaName } from '@tessera/core';
import type { MultiVector, MultiVectorEncoder } from '@tessera/encoders';
import {
  type DocumentRow,
  fuse,
  LanceContentIndex,
  LanceSearchBackend,
  lanceConnection,
  ndcg,
  type Profile,
  ProfileCatalog,
  phaseScores,
  phasesOf,
  type RankingStrategy,
  RERANK_DEPTH,
  rank,
  recall,
  reciprocalRank,
  SchemaCatalog,
  type Target,
} from '@tessera/search';
import type { BeirCollection, Split } from './beir';

export interface StrategyFigures {
  collection: string;
  split: Split;
  strategy: RankingStrategy;
  queries: number;
  ndcg10: number;
  mrr10: number;
  recall100: number;
  /** Query latency (encoding the query plus ranking its top 100), milliseconds. */
  p50: number;
  p95: number;
}

export interface CollectionRun {
  collection: string;
  encoder: string;
  documents: number;
  /** Seconds to encode and write the corpus, and to optimize the table's indexes. */
  indexSeconds: number;
  figures: StrategyFigures[];
}

export interface EvaluateOptions {
  repoRoot: string;
  encoder: MultiVectorEncoder;
  strategies: readonly RankingStrategy[];
  splits: readonly Split[];
  profile?: string;
  /** Scratch directory for the LanceDB tables (a temporary one by default, removed afterwards). */
  workDir?: string;
}

/** Documents encoded and written per commit, as content indexing batches them. */
const BATCH = 256;
/** Recall is read at 100; nDCG and MRR at 10. */
const DEPTH = 100;

export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

const mean = (values: readonly number[]) =>
  values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;

const toRow = (vectors: MultiVector) => ({
  embedding: { tokens: vectors.tokens, values: vectors.vectors },
  embedding_binary: { tokens: vectors.tokens, values: vectors.binary },
});

/** A collection fed into a table of the profile: the target strategies rank. */
interface Fed {
  target: Target;
  indexSeconds: number;
  close: () => void;
}

async function feedCollection(collection: BeirCollection, options: EvaluateOptions): Promise<Fed> {
  const schemas = new SchemaCatalog(path.join(options.repoRoot, 'configs/schemas'));
  const profiles = new ProfileCatalog(path.join(options.repoRoot, 'configs/profiles'), schemas);
  const profileName = options.profile ?? 'document_text_semantic';
  const profile: Profile | undefined = profiles.get(profileName);
  if (!profile) throw new Error(`Unknown profile ${profileName}`);
  const template = schemas.get(profile.schema_name)!;
  const tenant = parseTenantId(`eval:${collection.name.replace(/[^A-Za-z0-9_]/g, '_')}`);
  const schema = tenantSchemaName(profile.schema_name, tenant);

  const dir = options.workDir ?? mkdtempSync(path.join(tmpdir(), 'tessera-eval-'));
  const close = () => {
    if (!options.workDir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
    const index = new LanceContentIndex(lanceConnection(dir));
    await index.ensureIndexes(schema, template);

    const started = performance.now();
    const generation = Date.now();
    for (let start = 0; start < collection.documents.length; start += BATCH) {
      const batch = collection.documents.slice(start, start + BATCH);
      const fields = batch.map((doc) => ({ title: doc.title, text: doc.text, chunk_index: 0 }));
      const vectors = await options.encoder.encode(
        fields.map((f) => embeddingText(profile, f)),
        'document',
      );
      const rows: DocumentRow[] = batch.map((doc, i) => ({
        ...fields[i]!,
        document_id: doc.id,
        source_doc_id: doc.id,
        ingested_at: generation,
        ...toRow(vectors[i]!),
      }));
      await index.replaceSources(
        schema,
        template,
        batch.map((doc) => doc.id),
        rows,
      );
    }
    await index.optimize(schema);
    const indexSeconds = (performance.now() - started) / 1000;
    return { target: { index, schema, textFields: profile.text_fields }, indexSeconds, close };
  } catch (error) {
    close();
    throw error;
  }
}

export async function evaluateCollection(
  collection: BeirCollection,
  options: EvaluateOptions,
): Promise<CollectionRun> {
  const { target, indexSeconds, close } = await feedCollection(collection, options);
  try {
    const queries = collection.queries.filter((q) => options.splits.includes(q.split));
    const figures: StrategyFigures[] = [];
    for (const strategy of options.strategies) {
      // One untimed query first: the table's snapshot is read by its first query.
      const [warm] = await options.encoder.encode([queries[0]?.text ?? ''], 'query');
      await rank(target, strategy, { text: queries[0]?.text ?? '', vectors: warm! }, DEPTH);
      const perQuery = [];
      for (const query of queries) {
        const t0 = performance.now();
        const [vectors] = await options.encoder.encode([query.text], 'query');
        const ranked = (await rank(target, strategy, { text: query.text, vectors: vectors! }, DEPTH)).map(
          (s) => s.id,
        );
        const ms = performance.now() - t0;
        perQuery.push({
          split: query.split,
          ms,
          ndcg: ndcg(ranked, query.relevance, 10),
          mrr: reciprocalRank(ranked, query.relevance, 10),
          recall: recall(ranked, query.relevance, DEPTH),
        });
      }
      for (const split of options.splits) {
        const of = perQuery.filter((q) => q.split === split);
        figures.push({
          collection: collection.name,
          split,
          strategy,
          queries: of.length,
          ndcg10: mean(of.map((q) => q.ndcg)),
          mrr10: mean(of.map((q) => q.mrr)),
          recall100: mean(of.map((q) => q.recall)),
          p50: percentile(
            of.map((q) => q.ms),
            50,
          ),
          p95: percentile(
            of.map((q) => q.ms),
            95,
          ),
        });
      }
    }
    return {
      collection: collection.name,
      encoder: options.encoder.name,
      documents: collection.documents.length,
      indexSeconds,
      figures,
    };
  } finally {
    close();
  }
}

/** Second-phase weights tried by `tuneCollection`. */
export const WEIGHTS = Array.from({ length: 21 }, (_, i) => i / 20);

/**
 * nDCG@10 on the collection's dev queries of every two-phase strategy for each second-phase weight of
 * `WEIGHTS` (the phases scored once a query, then fused at each weight), and of every strategy at its
 * shipped weight. Test queries are never read.
 */
export async function tuneCollection(
  collection: BeirCollection,
  options: EvaluateOptions,
): Promise<{ byWeight: Map<RankingStrategy, number[]>; shipped: Map<RankingStrategy, number> }> {
  const { target, close } = await feedCollection(collection, options);
  try {
    const queries = collection.queries.filter((q) => q.split === 'dev');
    const byWeight = new Map<RankingStrategy, number[]>();
    const shipped = new Map<RankingStrategy, number>();
    for (const strategy of options.strategies) {
      const sums = WEIGHTS.map(() => 0);
      let shippedSum = 0;
      for (const query of queries) {
        const [vectors] = await options.encoder.encode([query.text], 'query');
        const q = { text: query.text, vectors: vectors! };
        shippedSum += ndcg(
          (await rank(target, strategy, q, DEPTH)).map((s) => s.id),
          query.relevance,
          10,
        );
        if (!phasesOf(strategy)[1]) continue;
        const { first, second } = await phaseScores(target, strategy, q, DEPTH);
        const window = first.slice(0, RERANK_DEPTH);
        WEIGHTS.forEach((weight, i) => {
          const fused = [...fuse(phasesOf(strategy), window, second, weight), ...first.slice(RERANK_DEPTH)];
          sums[i]! += ndcg(
            fused.map((s) => s.id),
            query.relevance,
            10,
          );
        });
      }
      shipped.set(strategy, shippedSum / queries.length);
      if (phasesOf(strategy)[1])
        byWeight.set(
          strategy,
          sums.map((sum) => sum / queries.length),
        );
    }
    return { byWeight, shipped };
  } finally {
    close();
  }
}

/** The figures as a table: collection, split and strategy on every line. */
export function formatFigures(figures: readonly StrategyFigures[]): string {
  const head = `${'collection'.padEnd(12)} ${'split'.padEnd(5)} ${'strategy'.padEnd(20)} ${'queries'.padStart(7)} ${'nDCG@10'.padStart(8)} ${'MRR@10'.padStart(8)} ${'R@100'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)}`;
  const lines = figures.map(
    (f) =>
      `${f.collection.padEnd(12)} ${f.split.padEnd(5)} ${f.strategy.padEnd(20)} ${String(f.queries).padStart(7)} ${f.ndcg10.toFixed(4).padStart(8)} ${f.mrr10.toFixed(4).padStart(8)} ${f.recall100.toFixed(4).padStart(8)} ${f.p50.toFixed(1).padStart(7)} ${f.p95.toFixed(1).padStart(7)}`,
  );
  return [head, ...lines].join('\n');
}
