/**
 * Ingestion figures through the local runtime with the embedded models: `tessera index` over a real
 * repository of more than 2,000 files (files/s, MB/s of source), time from upload to `complete` for a
 * 1 MB Markdown file and a 50-page PDF, and 200 concurrent small uploads for 4 tenants (completed, failed,
 * lost). `BENCH_INGEST_STEPS` (comma-separated `markdown,pdf,burst,index`) runs only those steps; default all.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { jobEnded, pdfOf, upload } from '../test/support/ingestion';
import { call, spawnRuntime } from '../test/support/runtime';

const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
/** A real repository: the Smithy packages of the AWS SDK (TypeScript compiled to JS, with typings). */
const REPOSITORY = path.join(root, 'node_modules/@smithy');
const STEPS = new Set((process.env.BENCH_INGEST_STEPS ?? 'markdown,pdf,burst,index').split(','));

/** Real prose: the README files of installed packages, in a stable order, from character `skip` on. */
function prose(bytes: number, skip = 0): string {
  const parts: string[] = [];
  let size = 0;
  const modules = path.join(root, 'node_modules');
  for (const name of readdirSync(modules).sort()) {
    const readme = path.join(modules, name, 'README.md');
    try {
      if (!statSync(readme).isFile()) continue;
    } catch {
      continue;
    }
    const text = readFileSync(readme, 'utf8');
    parts.push(text);
    size += Buffer.byteLength(text);
    if (size >= skip + bytes) break;
  }
  return parts.join('\n\n').slice(skip, skip + bytes);
}

async function timeUpload(base: string, tenant: string, name: string, content: string | Uint8Array) {
  const started = performance.now();
  const { status, body } = await upload(base, { tenant_id: tenant }, [{ name, content }]);
  if (status !== 202) throw new Error(`upload of ${name}: ${status} ${JSON.stringify(body)}`);
  const job = await jobEnded(base, body.job_id, 300_000);
  return { seconds: (performance.now() - started) / 1000, job };
}

export async function ingestBench(): Promise<void> {
  const runtime = await spawnRuntime({ env: { TESSERA_LOG_LEVEL: 'error' } });
  try {
    const tenants = ['bench', 'burst_a', 'burst_b', 'burst_c', 'burst_d'];
    for (const tenant of tenants) await call(runtime.url, 'POST', '/admin/tenants', { tenant_id: tenant });
    console.log('\nIngestion through the local runtime (embedded models)');

    if (STEPS.has('markdown')) {
      // The first document after start also pays for compiling the entity tagger's code on each of its
      // threads; a second, different one shows what a runtime that has been working takes.
      for (const [which, skip] of [
        ['first after start', 0],
        ['another, warm', 1024 * 1024],
      ] as const) {
        const markdown = prose(1024 * 1024, skip);
        const md = await timeUpload(runtime.url, 'bench', `bench-${skip}.md`, markdown);
        console.log(
          `1 MB Markdown, ${which} (${(Buffer.byteLength(markdown) / 1048576).toFixed(2)} MB, ${md.job.result.chunks_created} chunks, ${md.job.result.graph_nodes} graph nodes): upload → complete ${md.seconds.toFixed(2)} s`,
        );
      }
    }
    const lines = prose(200_000)
      .split('\n')
      .filter((line) => line.trim() !== '');
    const pages = Array.from({ length: 50 }, (_, page) =>
      lines
        .slice(page * 45, page * 45 + 45)
        .map((line) => line.replace(/[^\x20-\x7e]/g, ' ').slice(0, 110))
        .join('\n'),
    );
    if (STEPS.has('pdf')) {
      const pdf = await pdfOf(pages);
      const pdfRun = await timeUpload(runtime.url, 'bench', 'bench.pdf', pdf);
      console.log(
        `50-page PDF (${(pdf.byteLength / 1024).toFixed(0)} KB, ${pdfRun.job.result.chunks_created} chunks): upload → complete ${pdfRun.seconds.toFixed(2)} s`,
      );
    }

    if (STEPS.has('burst')) {
      const burst = Array.from({ length: 200 }, (_, i) => ({ tenant: tenants[1 + (i % 4)]!, i }));
      const started = performance.now();
      const submitted = await Promise.all(
        burst.map(({ tenant, i }) =>
          upload(runtime.url, { tenant_id: tenant }, [
            { name: `burst-${i}.md`, content: `${lines[i % lines.length]}\n\nBurst document number ${i}.` },
          ]),
        ),
      );
      const outcomes = await Promise.all(
        submitted.map(async (answer) => {
          if (answer.status !== 202) return 'refused';
          try {
            // Two hundred clients polling every 100 ms would be the load measured: once a second each.
            return (await jobEnded(runtime.url, answer.body.job_id, 600_000, 1000)).state as string;
          } catch {
            return 'lost';
          }
        }),
      );
      const tally = (state: string) => outcomes.filter((outcome) => outcome === state).length;
      console.log(
        `200 concurrent small uploads, 4 tenants: ${tally('complete')} completed, ${tally('failed')} failed, ${tally('refused')} refused, ${tally('lost')} lost in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }

    if (STEPS.has('index')) {
      const indexStarted = performance.now();
      const { stdout } = await run(
        process.execPath,
        [
          path.join(root, 'packages/cli/bin/tessera.js'),
          'index',
          REPOSITORY,
          '--json',
          '--tenant',
          'bench',
          '--url',
          runtime.url,
        ],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      const seconds = (performance.now() - indexStarted) / 1000;
      const summary = JSON.parse(stdout);
      const sourceBytes = summary.bytes_found as number;
      console.log(
        `tessera index ${path.relative(root, REPOSITORY)}: ${summary.files_found} files, ${(sourceBytes / 1048576).toFixed(1)} MB in ${seconds.toFixed(1)} s = ${(summary.files_found / seconds).toFixed(0)} files/s, ${(sourceBytes / 1048576 / seconds).toFixed(2)} MB/s (${summary.chunks_created} chunks, graph ${summary.graph_nodes} nodes / ${summary.graph_edges} edges, ${summary.errors.length} errors)`,
      );
    }
  } finally {
    await runtime.stop();
  }
}
