/**
 * `npm run eval -- code`: MRR@10, NDCG@10, Recall@10 and Precision@10 of every ranking strategy with the
 * given encoder, on doc-comment queries over a real codebase's code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MultiVectorEncoder } from '@tessera/encoders';
import {
  LanceContentIndex,
  LanceSearchBackend,
  lanceConnection,
  ndcg,
  precision,
  RankingStrategy,
  rank,
  recall,
  reciprocalRank,
  SchemaCatalog,
} from '@tessera/search';
import { codeCorpus, docstringQueries } from '../code-corpus';
import { splitOf } from './beir';

const K = 10;
const root = path.resolve(import.meta.dirname, '../..');

export async function evaluateCode(encoder: MultiVectorEncoder): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-eval-'));
  try {
    const template = new SchemaCatalog(path.join(root, 'configs/schemas')).get('code')!;
    const schema = 'code_eval_eval';
    await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
    const index = new LanceContentIndex(lanceConnection(dir));
    await index.ensureIndexes(schema, template);

    const chunks = codeCorpus();
    const queries = docstringQueries(chunks);
    for (let start = 0; start < chunks.length; start += 500) {
      const batch = chunks.slice(start, start + 500);
      // The doc comment is the query: index the code without it, so a match must come from the code.
      const vectors = await encoder.encode(
        batch.map((c) => `${c.symbol}\n${c.code}`),
        'document',
      );
      await index.upsert(
        schema,
        template,
        batch.map((chunk, i) => ({
          document_id: chunk.id,
          source_doc_id: chunk.file,
          symbol: chunk.symbol,
          text: chunk.code,
          embedding: { tokens: vectors[i]!.tokens, values: vectors[i]!.vectors },
          embedding_binary: { tokens: vectors[i]!.tokens, values: vectors[i]!.binary },
        })),
      );
    }
    await index.optimize(schema);

    const encoded = await encoder.encode(
      queries.map((q) => q.query),
      'query',
    );
    console.log(
      `\nEvaluation: ${queries.length} doc-comment queries over ${chunks.length} declarations of apache-arrow's sources`,
    );
    console.log(`encoder: ${encoder.name}; one relevant document per query; metrics @${K}\n`);
    console.log(
      `${'strategy'.padEnd(20)} ${'MRR'.padStart(7)} ${'NDCG'.padStart(7)} ${'Recall'.padStart(7)} ${'Prec'.padStart(7)} ${'ms/query'.padStart(9)} ${'NDCG dev'.padStart(9)} ${'NDCG test'.padStart(9)}`,
    );
    for (const strategy of RankingStrategy.options) {
      const totals = { mrr: 0, ndcg: 0, recall: 0, precision: 0 };
      // The same dev/test rule as the BEIR collections' (`splitOf`), by the relevant declaration's id.
      const bySplit = { dev: { ndcg: 0, queries: 0 }, test: { ndcg: 0, queries: 0 } };
      const started = performance.now();
      for (const [i, { query, relevant }] of queries.entries()) {
        const ranked = (
          await rank(
            { index, schema, textFields: ['symbol', 'docstring', 'text'] },
            strategy,
            { text: query, vectors: encoded[i]! },
            K,
          )
        ).map((r) => r.id);
        const relevance = new Set([relevant]);
        totals.mrr += reciprocalRank(ranked, relevance, K);
        const gain = ndcg(ranked, relevance, K);
        totals.ndcg += gain;
        const split = bySplit[splitOf('code', relevant)];
        split.ndcg += gain;
        split.queries++;
        totals.recall += recall(ranked, relevance, K);
        totals.precision += precision(ranked, relevance, K);
      }
      const ms = (performance.now() - started) / queries.length;
      const avg = (v: number) => (v / queries.length).toFixed(4).padStart(7);
      console.log(
        `${strategy.padEnd(20)} ${avg(totals.mrr)} ${avg(totals.ndcg)} ${avg(totals.recall)} ${avg(totals.precision)} ${ms.toFixed(1).padStart(9)} ${(bySplit.dev.ndcg / bySplit.dev.queries).toFixed(4).padStart(9)} ${(bySplit.test.ndcg / bySplit.test.queries).toFixed(4).padStart(9)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
