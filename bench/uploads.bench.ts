/**
 * Successive uploads into one tenant through the local runtime, as users upload: `BENCH_UPLOADS` (50)
 * requests of `BENCH_UPLOAD_FILES` (200) Markdown files each (`wait=true`), one paragraph-sized document a
 * file, cut from the Markdown files of node_modules. Prints each upload's time and the search latency of
 * every strategy on the table they built; the last upload must take at most 1.5× the first.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { RankingStrategy } from '@tessera/search';
import { upload } from '../test/support/ingestion';
import { call, spawnRuntime } from '../test/support/runtime';

const root = path.resolve(import.meta.dirname, '..');
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 50);
const FILES = Number(process.env.BENCH_UPLOAD_FILES ?? 200);
const TENANT = 'uploads:bench';
const WARM = 'uploads:warm';
const PROFILE = 'document_text_semantic';

/** Markdown files of node_modules in a stable order. */
function* markdownFiles(dir: string): Generator<string> {
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
      if (name !== '.cache' && name !== '.bin') yield* markdownFiles(full);
    } else if (/\.(md|markdown|txt)$/.test(name) && stat.size > 1024) yield full;
  }
}

/**
 * Abstract-sized documents (400 to 1,900 characters of prose: paragraphs joined, code blocks, tables and
 * link lists dropped), distinct, in a stable order.
 */
export function proseDocuments(count: number): string[] {
  const documents: string[] = [];
  const seen = new Set<string>();
  // A second pass groups each file's paragraphs from its second one on, and so on.
  for (let pass = 0; pass < 4; pass++) {
    for (const file of markdownFiles(path.join(root, 'node_modules'))) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      let current = '';
      for (const paragraph of text.split(/\n\s*\n/).slice(pass)) {
        const clean = paragraph.trim();
        const words = clean.match(/[A-Za-z]{3,}/g)?.length ?? 0;
        if (clean.startsWith('|') || clean.startsWith('[') || clean.startsWith('<') || words < 6) continue;
        current = current ? `${current}\n\n${clean}` : clean;
        if (current.length < 400) continue;
        const document = current.slice(0, 1900);
        current = '';
        if (seen.has(document)) continue;
        seen.add(document);
        documents.push(document);
        if (documents.length === count) return documents;
      }
    }
  }
  throw new Error(`node_modules holds only ${documents.length} prose documents, ${count} wanted`);
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

export async function uploadsBench(): Promise<void> {
  const documents = proseDocuments(UPLOADS * FILES);
  const runtime = await spawnRuntime({ env: { TESSERA_LOG_LEVEL: 'error' } });
  try {
    await call(runtime.url, 'POST', '/admin/tenants', { tenant_id: TENANT });
    // Untimed: the first upload of a runtime also compiles the entity tagger on each of its threads.
    await call(runtime.url, 'POST', '/admin/tenants', { tenant_id: WARM });
    await upload(
      runtime.url,
      { tenant_id: WARM, wait: 'true' },
      documents.slice(0, 20).map((content, i) => ({ name: `warm-${i}.md`, content })),
    );
    console.log(
      `\n${UPLOADS} uploads of ${FILES} Markdown files (one document each) into one tenant, wait=true, through the local runtime (after one untimed upload to another tenant)`,
    );
    const times: number[] = [];
    for (let u = 0; u < UPLOADS; u++) {
      const files = documents
        .slice(u * FILES, (u + 1) * FILES)
        .map((content, i) => ({ name: `doc-${u * FILES + i}.md`, content }));
      const started = performance.now();
      const { status, body } = await upload(runtime.url, { tenant_id: TENANT, wait: 'true' }, files);
      const seconds = (performance.now() - started) / 1000;
      if (status !== 200 || body.status !== 'complete')
        throw new Error(`upload ${u + 1}: ${status} ${JSON.stringify(body).slice(0, 400)}`);
      times.push(seconds);
      console.log(
        `upload ${String(u + 1).padStart(3)}: ${seconds.toFixed(2).padStart(6)} s (${body.documents_fed} documents, ${body.graph_nodes} graph nodes; ${(u + 1) * FILES} stored)`,
      );
    }
    const ratio = times.at(-1)! / times[0]!;
    console.log(
      `last/first: ${ratio.toFixed(2)}× (${times.at(-1)!.toFixed(2)} s / ${times[0]!.toFixed(2)} s); median of the last 5 / of the first 5: ${(percentile(times.slice(-5), 50) / percentile(times.slice(0, 5), 50)).toFixed(2)}×`,
    );

    // Search on the table the uploads built, through the API, as a client measures it.
    const queries = documents
      .filter((_, i) => i % Math.max(1, Math.floor(documents.length / 40)) === 0)
      .map((text) => text.split(/\s+/).slice(3, 9).join(' '));
    console.log(`\nsearch on the table built by the uploads (${queries.length} queries, top_k 10), ms`);
    console.log(
      `${'strategy'.padEnd(20)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'took p95'.padStart(9)}`,
    );
    for (const strategy of RankingStrategy.options) {
      const times: number[] = [];
      const took: number[] = [];
      for (const query of queries) {
        const started = performance.now();
        const answer = await call(runtime.url, 'POST', '/search/', {
          query,
          profile: PROFILE,
          strategy,
          tenant_id: TENANT,
          top_k: 10,
        });
        if (answer.status !== 200) throw new Error(`search: ${answer.status} ${JSON.stringify(answer.body)}`);
        times.push(performance.now() - started);
        took.push(answer.body.took_ms);
      }
      console.log(
        `${strategy.padEnd(20)} ${percentile(times, 50).toFixed(1).padStart(8)} ${percentile(times, 95).toFixed(1).padStart(8)} ${percentile(took, 95).toFixed(1).padStart(9)}`,
      );
    }
  } finally {
    await runtime.stop();
  }
}
