/**
 * `npm run eval [-- beir|code] [options]`: ranking quality of every strategy.
 *
 * - `beir` (the default): every BEIR-format collection under the datasets folder (`--datasets`, else
 *   `TESSERA_EVAL_DATASETS`, else the `shared/datasets` beside the repository), each fed into a tenant's
 *   table of a document profile, its judged queries split into dev and test (see `splitOf`); prints nDCG@10,
 *   MRR@10, Recall@100 and p50/p95 query latency per collection, split and strategy. Name collections to
 *   run only those: `npm run eval -- beir cranfield`.
 * - `code`: doc-comment queries over apache-arrow's sources (MRR, NDCG, Recall and Precision at 10).
 *
 * Options: `--encoder <name>` an embedded encoder (default: the configured one), `--split dev|test`
 * (default both), `--strategy <name>` (repeatable; default all nine), `--profile <name>` (default
 * document_text_semantic), `--json <file>` to write the figures.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createMultiVectorEncoder, EmbeddedEncoderName } from '@tessera/encoders';
import { RankingStrategy } from '@tessera/search';
import { datasetsRoot, discoverCollections, loadCollection, type Split } from './eval/beir';
import {
  type CollectionRun,
  evaluateCollection,
  formatFigures,
  tuneCollection,
  WEIGHTS,
} from './eval/collection';

const repoRoot = path.resolve(import.meta.dirname, '..');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    encoder: { type: 'string' },
    split: { type: 'string' },
    strategy: { type: 'string', multiple: true },
    profile: { type: 'string' },
    datasets: { type: 'string' },
    json: { type: 'string' },
    tune: { type: 'boolean' },
  },
});

const encoder = createMultiVectorEncoder(
  values.encoder ? { embedded: EmbeddedEncoderName.parse(values.encoder.replace(/^embedded:/, '')) } : {},
);
const [mode = 'beir', ...names] = positionals;

if (mode === 'code') {
  const { evaluateCode } = await import('./eval/code');
  await evaluateCode(encoder);
} else if (mode === 'beir') {
  const root = datasetsRoot(repoRoot, values.datasets ?? process.env.TESSERA_EVAL_DATASETS);
  const found = discoverCollections(root);
  const unknown = names.filter((name) => !found.includes(name));
  if (found.length === 0 || unknown.length > 0) {
    console.error(
      found.length === 0
        ? `No BEIR collection found under ${root}; set --datasets or TESSERA_EVAL_DATASETS`
        : `No collection ${unknown.join(', ')} under ${root}; found ${found.join(', ')}`,
    );
    process.exit(1);
  }
  const splits: Split[] = values.split ? [values.split === 'dev' ? 'dev' : 'test'] : ['dev', 'test'];
  if (values.split && values.split !== 'dev' && values.split !== 'test') {
    console.error(`--split is dev or test, not ${values.split}`);
    process.exit(1);
  }
  const strategies = (values.strategy ?? RankingStrategy.options).map((s) => RankingStrategy.parse(s));
  if (values.tune) {
    await tune(root, names.length > 0 ? names : found, strategies);
    process.exit(0);
  }
  const runs: CollectionRun[] = [];
  const fingerprint = 'fingerprint' in encoder ? ` (${String(encoder.fingerprint)})` : '';
  console.log(`Datasets: ${root}; encoder ${encoder.name}${fingerprint}`);
  for (const name of names.length > 0 ? names : found) {
    const collection = loadCollection(path.join(root, name), name);
    const dev = collection.queries.filter((q) => q.split === 'dev').length;
    console.log(
      `\n${name}: ${collection.documents.length} documents, ${collection.queries.length} judged queries ` +
        `(dev ${dev}, test ${collection.queries.length - dev}), ${collection.graded ? 'graded' : 'binary'} relevance`,
    );
    const run = await evaluateCollection(collection, {
      repoRoot,
      encoder,
      strategies,
      splits,
      ...(values.profile ? { profile: values.profile } : {}),
    });
    console.log(
      `profile ${values.profile ?? 'document_text_semantic'} (title + text); indexed in ${run.indexSeconds.toFixed(1)} s; ` +
        'nDCG and MRR at 10, recall at 100; latency = query encoding + ranking the top 100\n',
    );
    console.log(formatFigures(run.figures));
    runs.push(run);
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ datasets: root, runs }, null, 2)}\n`);
} else {
  console.error(`Unknown evaluation '${mode}': beir (default) or code`);
  process.exit(1);
}

/**
 * `--tune`: per two-phase strategy, nDCG@10 on the dev queries of each collection at each second-phase
 * weight, and the weight whose mean over the collections is best; then every strategy's dev nDCG@10 at its
 * shipped weight (which default strategy measures best). Reads no test query.
 */
async function tune(root: string, collections: string[], strategies: RankingStrategy[]): Promise<void> {
  const results = [];
  for (const name of collections) {
    const collection = loadCollection(path.join(root, name), name);
    results.push({
      name,
      ...(await tuneCollection(collection, { repoRoot, encoder, strategies, splits: ['dev'] })),
    });
  }
  console.log(
    `\nnDCG@10 on the dev queries by second-phase weight (${results.map((r) => r.name).join(' / ')}, then their mean)`,
  );
  for (const strategy of strategies) {
    const curves = results.map((r) => r.byWeight.get(strategy));
    if (curves.some((curve) => !curve)) continue;
    const means = WEIGHTS.map((_, i) => curves.reduce((sum, curve) => sum + curve![i]!, 0) / curves.length);
    const best = means.indexOf(Math.max(...means));
    console.log(`\n${strategy}: best weight ${WEIGHTS[best]} (mean dev nDCG@10 ${means[best]!.toFixed(4)})`);
    WEIGHTS.forEach((weight, i) => {
      console.log(
        `  ${weight.toFixed(2)}  ${curves.map((curve) => curve![i]!.toFixed(4)).join('  ')}  ${means[i]!.toFixed(4)}${i === best ? '  ←' : ''}`,
      );
    });
  }
  console.log('\ndev nDCG@10 at the shipped weights');
  for (const strategy of strategies) {
    const values = results.map((r) => r.shipped.get(strategy)!);
    const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
    console.log(
      `  ${strategy.padEnd(20)} ${values.map((v) => v.toFixed(4)).join('  ')}  mean ${mean.toFixed(4)}`,
    );
  }
}
