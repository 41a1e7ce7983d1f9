/** `tessera graph stats|search|neighbors|path`: thin commands over the runtime's `GET /graph/*` endpoints. */
import { Command } from 'commander';
import { type ConnectionOptions, connect } from '../client';
import { type CliEnv, cliEnv } from '../env';
import { CliError, settle } from '../errors';
import {
  graphNeighborsSchema,
  graphPathSchema,
  graphSearchSchema,
  graphStatsSchema,
  readAnswer,
} from '../graph-api';
import { neighborsLines, pathLines, searchLines, statsLines } from '../graph-format';
import { type Output, stdio } from '../output';

export interface CommonOptions extends ConnectionOptions {
  /** Print the runtime's JSON body instead of the text lines. */
  json?: boolean;
}

/** Numeric options come as typed by the user (strings) or as numbers; both are checked before any request. */
type IntOption = number | string;

export interface GraphSearchOptions extends CommonOptions {
  query: string;
  topK?: IntOption;
}

export interface GraphNeighborsOptions extends CommonOptions {
  node: string;
  depth?: IntOption;
}

export interface GraphPathOptions extends CommonOptions {
  source: string;
  target: string;
  maxDepth?: IntOption;
}

export async function runGraphStats(
  options: CommonOptions,
  output: Output = stdio,
  env: CliEnv = cliEnv,
): Promise<number> {
  const { client, tenant } = connect(options, env);
  const body = await client.get('/graph/stats', { tenant_id: tenant });
  return print(options, output, body, () => statsLines(readAnswer(graphStatsSchema, body, '/graph/stats')));
}

export async function runGraphSearch(
  options: GraphSearchOptions,
  output: Output = stdio,
  env: CliEnv = cliEnv,
): Promise<number> {
  const query = requireText('The search query', options.query);
  const topK = intOption('--top-k', options.topK, 1, 100, 10);
  const { client, tenant } = connect(options, env);
  const body = await client.get('/graph/search', { tenant_id: tenant, q: query, top_k: topK });
  return print(options, output, body, () =>
    searchLines(query, readAnswer(graphSearchSchema, body, '/graph/search')),
  );
}

export async function runGraphNeighbors(
  options: GraphNeighborsOptions,
  output: Output = stdio,
  env: CliEnv = cliEnv,
): Promise<number> {
  const node = requireText('The node', options.node);
  const depth = intOption('--depth', options.depth, 1, 3, 1);
  const { client, tenant } = connect(options, env);
  const body = await client.get('/graph/neighbors', { tenant_id: tenant, node, depth });
  return print(options, output, body, () =>
    neighborsLines(readAnswer(graphNeighborsSchema, body, '/graph/neighbors')),
  );
}

export async function runGraphPath(
  options: GraphPathOptions,
  output: Output = stdio,
  env: CliEnv = cliEnv,
): Promise<number> {
  const source = requireText('The source node', options.source);
  const target = requireText('The target node', options.target);
  const maxDepth = intOption('--max-depth', options.maxDepth, 1, 6, 4);
  const { client, tenant } = connect(options, env);
  const body = await client.get('/graph/path', { tenant_id: tenant, source, target, max_depth: maxDepth });
  return print(options, output, body, () =>
    pathLines(readAnswer(graphPathSchema, body, '/graph/path'), maxDepth),
  );
}

/** The `graph` command group, built fresh for each program. */
export function graphCommand(): Command {
  const graph = new Command('graph').description("Query a tenant's knowledge graph");
  withCommon(graph.command('stats'))
    .description('Node and edge counts and the top nodes by degree')
    .action((flags: CommonOptions) => settle(runGraphStats(flags)));
  withCommon(graph.command('search'))
    .description('Hybrid text and vector search over node names and descriptions')
    .argument('<query>', 'search text')
    .option('--top-k <n>', 'number of nodes to return, 1 to 100 (default: 10)')
    .action((query: string, flags: CommonOptions) => settle(runGraphSearch({ ...flags, query })));
  withCommon(graph.command('neighbors'))
    .description('Outgoing and incoming edges of a node, with relation and provenance')
    .argument('<node>', 'node name or id')
    .option('--depth <n>', 'hops to follow, 1 to 3 (default: 1)')
    .action((node: string, flags: CommonOptions) => settle(runGraphNeighbors({ ...flags, node })));
  withCommon(graph.command('path'))
    .description('Shortest path along outgoing edges (breadth-first)')
    .argument('<source>', 'source node name or id')
    .argument('<target>', 'target node name or id')
    .option('--max-depth <n>', 'longest path to look for, 1 to 6 (default: 4)')
    .action((source: string, target: string, flags: CommonOptions) =>
      settle(runGraphPath({ ...flags, source, target })),
    );
  return graph;
}

function withCommon(command: Command): Command {
  return command
    .option('--url <url>', 'runtime base URL (default: $TESSERA_RUNTIME_URL or http://localhost:28000)')
    .option('--tenant <id>', 'tenant id, org:tenant or org (default: $TESSERA_TENANT_ID)')
    .option('--json', "print the runtime's JSON answer");
}

function print(options: CommonOptions, output: Output, body: unknown, lines: () => string[]): number {
  if (options.json) {
    output.out(JSON.stringify(body, null, 2));
    return 0;
  }
  for (const line of lines()) output.out(line);
  return 0;
}

function intOption(
  flag: string,
  value: IntOption | undefined,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  const number = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new CliError(`${flag} must be an integer from ${min} to ${max}, got '${value}'.`);
  }
  return number;
}

function requireText(what: string, value: string): string {
  if (!value.trim()) throw new CliError(`${what} must not be empty.`);
  return value;
}
