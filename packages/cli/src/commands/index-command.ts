/**
 * `tessera index <path> --type code`: uploads a tree's code files through the ingestion API (the server
 * chunks, embeds and feeds them, and skips files whose content it already has), extracts their graph
 * locally with the code extractor (text-like siblings with the document extractor, nodes only) and
 * upserts it, then prints the summary.
 */
import { readFile } from 'node:fs/promises';
import { mapBounded } from '@tessera/core';
import { edgeId, normalizeNodeId } from '@tessera/graph/ids';
import { Command } from 'commander';
import { type ConnectionOptions, connect, type RuntimeClient } from '../client';
import { type CliEnv, cliEnv } from '../env';
import { CliError, settle } from '../errors';
import { type Output, stdio } from '../output';
import { Progress } from '../progress';
import { type WalkedFile, walkTree } from '../walk';

/** The extractors (syntax trees, the entity tagger) load when a tree is indexed, not with every command. */
const extractors = () => import('@tessera/extractors');

export interface IndexOptions extends ConnectionOptions {
  path: string;
  type?: string;
  json?: boolean;
}

interface FileOutcome {
  source_doc_id: string;
  status: 'indexed' | 'skipped' | 'failed';
  chunks_created: number;
  documents_fed: number;
  error?: string;
}

interface JobAnswer {
  job_id: string;
  status: string;
  files?: FileOutcome[];
  error?: string;
}

/** Files an upload carries, and bytes: small enough for the API's 10 MB body limit. */
const BATCH_FILES = 256;
const BATCH_BYTES = 8 * 1024 * 1024;
const UPLOADS_IN_FLIGHT = 2;
/** Nodes or edges a graph upsert carries, well inside the API's body limit. */
const UPSERT_ITEMS = 2000;

function batches(files: WalkedFile[]): WalkedFile[][] {
  const result: WalkedFile[][] = [];
  let current: WalkedFile[] = [];
  let bytes = 0;
  for (const file of files) {
    if (current.length > 0 && (current.length >= BATCH_FILES || bytes + file.size > BATCH_BYTES)) {
      result.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
  }
  if (current.length > 0) result.push(current);
  return result;
}

/** Uploads one batch and answers the job's per-file outcome once the job ended. */
async function upload(client: RuntimeClient, tenant: string, files: WalkedFile[]): Promise<JobAnswer> {
  const form = new FormData();
  form.set('tenant_id', tenant);
  form.set('wait', 'true');
  for (const file of files) {
    form.append('file', new Blob([await readFile(file.absolute)]), file.relative);
  }
  let answer = (await client.postForm('/ingestion/upload', form, 120_000)) as JobAnswer;
  // The server stops waiting after ~25 s and answers the queued job; a longer job is followed through its status.
  while (answer.status === 'queued') {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const status = (await client.get(`/ingestion/${answer.job_id}/events`, {})) as {
      state: string;
      result?: JobAnswer;
      error?: string;
    };
    if (status.result) answer = status.result;
    else if (['failed', 'cancelled'].includes(status.state)) {
      throw new CliError(
        `Ingestion job ${answer.job_id} ${status.state}: ${status.error ?? 'no reason given'}`,
      );
    }
  }
  return answer;
}

interface UpsertNode {
  name: string;
}

interface UpsertEdge {
  source: string;
  relation: string;
  target: string;
  segment_id: string;
  ts_start: number;
  ts_end: number;
}

/**
 * Upserts the run's graph in requests the API's body limit takes, and answers how many distinct nodes (edge
 * ends included) and edges it holds, as the graph identifies them: a node upserted by several requests (a
 * symbol many files import) counts once, where the requests' own counts would count it in each.
 */
async function upsertGraph(
  client: RuntimeClient,
  tenant: string,
  nodes: UpsertNode[],
  edges: UpsertEdge[],
): Promise<{ nodes: number; edges: number }> {
  for (let start = 0; start < Math.max(nodes.length, edges.length); start += UPSERT_ITEMS) {
    await client.post(
      '/graph/upsert',
      {
        tenant_id: tenant,
        nodes: nodes.slice(start, start + UPSERT_ITEMS),
        edges: edges.slice(start, start + UPSERT_ITEMS),
      },
      120_000,
    );
  }
  const nodeIds = new Set(nodes.map((node) => normalizeNodeId(node.name)));
  const edgeIds = new Set<string>();
  for (const edge of edges) {
    const source = normalizeNodeId(edge.source);
    const target = normalizeNodeId(edge.target);
    nodeIds.add(source).add(target);
    edgeIds.add(edgeId(source, edge.relation, target, edge.segment_id, edge.ts_start, edge.ts_end));
  }
  return { nodes: nodeIds.size, edges: edgeIds.size };
}

/** Graph nodes of the text-like siblings (entities only: no edges without an LLM). */
async function textGraph(files: WalkedFile[]): Promise<{ nodes: UpsertNode[]; errors: IndexError[] }> {
  const nodes: UpsertNode[] = [];
  const errors: IndexError[] = [];
  if (files.length === 0) return { nodes, errors };
  const { chunkText, createEntityExtractor, extractDocumentGraph } = await extractors();
  const entities = createEntityExtractor();
  for (const file of files) {
    try {
      const text = await readFile(file.absolute, 'utf8');
      const segments = chunkText(text).map((chunk, index) => ({
        segment_id: `chunk_${index}`,
        text: chunk,
        ts_start: 0,
        ts_end: 0,
        modality: 'text',
      }));
      if (segments.length === 0) continue;
      const graph = await extractDocumentGraph({ sourceDocId: file.relative, segments, entities });
      nodes.push(...graph.nodes);
    } catch (error) {
      errors.push({ path: file.relative, message: (error as Error).message });
    }
  }
  return { nodes, errors };
}

interface IndexError {
  path: string;
  message: string;
}

interface BatchDone {
  outcomes: FileOutcome[];
  errors: IndexError[];
  nodes: UpsertNode[];
  edges: UpsertEdge[];
}

/** Statuses that refuse what a request carries (a file over the cap, an empty file), not the run. */
const REFUSED_CONTENT = new Set([400, 413, 415, 422]);

/**
 * Uploads a batch. When the server refuses it for what it carries, each file goes up alone, so that one
 * refused file is reported with its reason and the others are indexed.
 */
async function uploadBatch(client: RuntimeClient, tenant: string, files: WalkedFile[]): Promise<BatchDone> {
  const done: BatchDone = { outcomes: [], errors: [], nodes: [], edges: [] };
  try {
    done.outcomes = (await upload(client, tenant, files)).files ?? [];
  } catch (error) {
    if (!(error instanceof CliError && REFUSED_CONTENT.has(error.status ?? 0))) throw error;
    if (files.length === 1) {
      done.errors.push({ path: files[0]!.relative, message: error.message });
      return done;
    }
    for (const file of files) {
      const alone = await uploadBatch(client, tenant, [file]);
      done.outcomes.push(...alone.outcomes);
      done.errors.push(...alone.errors);
    }
  }
  return done;
}

/** Uploads a batch, then extracts the code graph of the files the server indexed anew. */
async function indexBatch(client: RuntimeClient, tenant: string, files: WalkedFile[]): Promise<BatchDone> {
  const done = await uploadBatch(client, tenant, files);
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
