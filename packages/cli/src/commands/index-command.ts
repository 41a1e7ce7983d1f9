/**
 * `tessera index <path> --type code`: uploads a tree's code files through the ingestion API (the server
 * chunks, embeds and feeds them, and skips files whose content it already has), extracts their graph
 * locally with the code extractor (text-like siblings with the document extractor, nodes only) and
 * upserts it, then prints the summary.
 */
import { readFile } from 'node:fs/promises';
import { mapBounded } from '@tessera/core';
import { Command } from 'commander';
import { type ConnectionOptions, connect, type RuntimeClient } from '../client';
import { type CliEnv, cliEnv } from '../env';
import { CliError, settle } from '../errors';
import { extractors, textGraph, type UpsertEdge, type UpsertNode, upsertGraph } from '../local-graph';
import { type Output, stdio } from '../output';
import { Progress } from '../progress';
import { batches, type FileOutcome, type IndexError, uploadBatch } from '../uploads';
import { type WalkedFile, walkTree } from '../walk';

export interface IndexOptions extends ConnectionOptions {
  path: string;
  type?: string;
  json?: boolean;
}

/** Upload batches in flight at once: the server works on one while the next is sent. */
const UPLOADS_IN_FLIGHT = 2;

interface BatchDone {
  outcomes: FileOutcome[];
  errors: IndexError[];
  nodes: UpsertNode[];
  edges: UpsertEdge[];
}

/** Uploads a batch, then extracts the code graph of the files the server indexed anew. */
async function indexBatch(client: RuntimeClient, tenant: string, files: WalkedFile[]): Promise<BatchDone> {
  const done: BatchDone = { ...(await uploadBatch(client, tenant, files)), nodes: [], edges: [] };
  const byName = new Map(files.map((file) => [file.relative, file]));
  const { extractCode } = await extractors();
  for (const outcome of done.outcomes) {
    if (outcome.status === 'failed') {
      done.errors.push({ path: outcome.source_doc_id, message: outcome.error ?? 'failed' });
      continue;
    }
    // An unchanged file's graph is already stored; a changed one's is extracted here.
    if (outcome.status === 'skipped') continue;
    const file = byName.get(outcome.source_doc_id);
    if (!file) continue;
    try {
      const graph = await extractCode(file.relative, await readFile(file.absolute, 'utf8'));
      done.nodes.push(...graph.nodes);
      done.edges.push(...graph.edges);
    } catch (error) {
      done.errors.push({
        path: file.relative,
        message: `graph extraction failed: ${(error as Error).message}`,
      });
    }
  }
  return done;
}

export async function runIndex(
  options: IndexOptions,
  output: Output = stdio,
  env: CliEnv = cliEnv,
): Promise<number> {
  const type = options.type ?? 'code';
  if (type === 'docs' || type === 'video') {
    throw new CliError(`--type ${type} is not yet implemented. Only 'code' is supported.`);
  }
  if (type !== 'code') throw new CliError(`Unknown --type '${type}': expected code, docs or video.`);
  const { client, tenant } = connect(options, env);
  let walk: Awaited<ReturnType<typeof walkTree>>;
  try {
    walk = await walkTree(options.path);
  } catch (error) {
    throw new CliError(`Cannot index ${options.path}: ${(error as Error).message}`);
  }
  if (walk.code.length === 0) {
    if (options.json) output.out(JSON.stringify({ root: walk.root, files_found: 0 }, null, 2));
    else output.out(`No code files found in ${walk.root}`);
    return 0;
  }
  if (!options.json) output.out(`Found ${walk.code.length} code files in ${walk.root}`);

  const progress = new Progress(walk.code.length, !options.json);
  // Text siblings are extracted here while the server works on the uploads; batches answer in walk order.
  const [done, text] = await Promise.all([
    mapBounded(batches(walk.code), UPLOADS_IN_FLIGHT, async (files) => {
      const batch = await indexBatch(client, tenant, files);
      progress.advance(files.length);
      return batch;
    }),
    textGraph(walk.text),
  ]);
  progress.done();
  // In walk order, so the same tree always makes the same upserts.
  const outcomes = done.flatMap((batch) => batch.outcomes);
  const errors = [...done.flatMap((batch) => batch.errors), ...text.errors];
  const graph = await upsertGraph(
    client,
    tenant,
    [...done.flatMap((batch) => batch.nodes), ...text.nodes],
    done.flatMap((batch) => batch.edges),
  );

  const count = (status: FileOutcome['status']) => outcomes.filter((o) => o.status === status).length;
  const sum = (field: 'chunks_created' | 'documents_fed') =>
    outcomes.reduce((total, o) => total + o[field], 0);
  const summary = {
    root: walk.root,
    files_found: walk.code.length,
    bytes_found: walk.code.reduce((total, file) => total + file.size, 0),
    files_indexed: count('indexed') + count('skipped'),
    files_skipped: count('skipped'),
    chunks_created: sum('chunks_created'),
    documents_fed: sum('documents_fed'),
    graph_nodes: graph.nodes,
    graph_edges: graph.edges,
    errors,
  };
  if (options.json) {
    output.out(JSON.stringify(summary, null, 2));
  } else {
    output.out(`Indexed ${summary.files_indexed}/${summary.files_found} files`);
    output.out(`  Chunks created: ${summary.chunks_created}`);
    output.out(`  Documents fed: ${summary.documents_fed}`);
    output.out(`  Graph: ${summary.graph_nodes} nodes, ${summary.graph_edges} edges`);
    if (summary.files_skipped > 0) output.out(`  Skipped (unchanged): ${summary.files_skipped}`);
    if (errors.length > 0) {
      output.out(`  Errors: ${errors.length}`);
      for (const error of errors.slice(0, 5)) output.out(`    ${error.path}: ${error.message}`);
    }
  }
  return errors.length > 0 && summary.files_indexed === 0 ? 1 : 0;
}

export function indexCommand(): Command {
  return new Command('index')
    .description("Index a source tree's code files: content index and knowledge graph")
    .argument('<path>', 'root of the tree')
    .option('--type <type>', "what to index; only 'code' is supported", 'code')
    .option('--url <url>', 'runtime base URL (default: $TESSERA_RUNTIME_URL or http://localhost:28000)')
    .option('--tenant <id>', 'tenant id, org:tenant or org (default: $TESSERA_TENANT_ID)')
    .option('--json', 'print the summary as JSON')
    .action((root: string, flags: Omit<IndexOptions, 'path'>) => settle(runIndex({ ...flags, path: root })));
}
