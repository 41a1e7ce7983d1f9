/**
 * Test double of the Tessera runtime's `GET /graph/*` contract on 127.0.0.1 (node:http, port 0): registered
 * tenants with small graphs, the runtime's 404/422 bodies, and a record of every request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Output } from '../src/index';

export { closedPortUrl, failure } from '@tessera/testing';

export interface SeenRequest {
  method: string;
  path: string;
  query: Record<string, string>;
}

/** An answer: status with a JSON or text body, or `hang` to never answer. */
export type Reply = { status: number; json?: unknown; text?: string } | 'hang';

export interface FakeNode {
  name: string;
  description: string;
  kind: string;
}

export interface FakeEdge {
  source: string;
  target: string;
  relation: string;
  provenance: string;
}

export interface FakeGraph {
  nodes: FakeNode[];
  edges: FakeEdge[];
}

export interface FakeRuntime {
  url: string;
  requests: SeenRequest[];
  /** Answers instead of the contract when it returns a reply (error bodies the CLI never provokes). */
  override: ((request: SeenRequest) => Reply | undefined) | undefined;
  close(): Promise<void>;
}

/** A small code graph: module `settings` defines a loader that calls a parser. */
export const SAMPLE_GRAPH: FakeGraph = {
  nodes: [
    { name: 'settings', description: 'Module settings (python)', kind: 'entity' },
    { name: 'load_settings', description: 'Loads the settings file\nand applies defaults', kind: 'entity' },
    { name: 'parse_config', description: 'function definition: parse_config', kind: 'entity' },
    { name: 'Config', description: 'class definition: Config', kind: 'entity' },
    { name: 'safe_load', description: '', kind: 'concept' },
    { name: 'Orphan Node', description: 'Nothing points here', kind: 'concept' },
  ],
  edges: [
    { source: 'settings', target: 'load_settings', relation: 'defines', provenance: 'EXTRACTED' },
    { source: 'settings', target: 'Config', relation: 'defines', provenance: 'EXTRACTED' },
    { source: 'load_settings', target: 'parse_config', relation: 'calls', provenance: 'EXTRACTED' },
    { source: 'parse_config', target: 'safe_load', relation: 'calls', provenance: 'INFERRED' },
  ],
};

/** node_id per the clarifications: NFD, ASCII only, runs of other characters → `_`, trimmed, lower case. */
export function nodeId(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0080-\uffff]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

function canonicalTenant(raw: string): string | undefined {
  const parts = raw.split(':');
  if (parts.length > 2 || parts.some((part) => !/^[A-Za-z0-9_]+$/.test(part))) return undefined;
  return parts.length === 2 ? raw : `${raw}:${raw}`;
}

function edgeBody(edge: FakeEdge) {
  const source = nodeId(edge.source);
  const target = nodeId(edge.target);
  return {
    source_node_id: source,
    target_node_id: target,
    relation: edge.relation,
    evidence_span: `${edge.source} ${edge.relation} ${edge.target}`,
    segment_id: `function:${edge.source}`,
    ts_start: 0,
    ts_end: 0,
    modality: 'code',
    provenance: edge.provenance,
    source_doc_id: 'settings.py',
    confidence: 1,
    edge_id: `${source}|${edge.relation}|${target}`,
  };
}

function invalid(param: string, msg: string, input: unknown): Reply {
  return { status: 422, json: { detail: [{ type: 'value_error', loc: ['query', param], msg, input }] } };
}

/** Reads an integer query parameter the way the runtime validates it; a Reply when it is out of range. */
function intParam(query: Record<string, string>, name: string, min: number, max: number, fallback: number) {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) return invalid(name, 'Input should be a valid integer', raw);
  if (value < min) return invalid(name, `Input should be greater than or equal to ${min}`, raw);
  if (value > max) return invalid(name, `Input should be less than or equal to ${max}`, raw);
  return value;
}

function answer(graphs: Record<string, FakeGraph>, request: SeenRequest): Reply {
  const { path, query } = request;
  if (!path.startsWith('/graph/')) return { status: 404, json: { detail: 'Not Found' } };
  if (query.tenant_id === undefined) return invalid('tenant_id', 'Field required', null);
  const tenant = canonicalTenant(query.tenant_id);
  if (!tenant) return { status: 400, json: { detail: `Invalid tenant_id format: ${query.tenant_id}` } };
  const graph = graphs[tenant];
  if (!graph) return { status: 404, json: { detail: `Tenant '${query.tenant_id}' not registered.` } };
  const nodes = graph.nodes.map((node) => ({
    node_id: nodeId(node.name),
    name: node.name,
    description: node.description,
    kind: node.kind,
    label: node.kind === 'entity' ? 'Entity' : 'Concept',
    degree: graph.edges.filter(
      (e) => nodeId(e.source) === nodeId(node.name) || nodeId(e.target) === nodeId(node.name),
    ).length,
  }));
  const edges = graph.edges.map(edgeBody);
  const find = (ref: string) => nodes.find((node) => node.node_id === ref || node.node_id === nodeId(ref));

  if (path === '/graph/stats') {
    const top = [...nodes].sort((a, b) => b.degree - a.degree || a.node_id.localeCompare(b.node_id));
    return {
      status: 200,
      json: {
        tenant_id: tenant,
        node_count: nodes.length,
        edge_count: edges.length,
        top_nodes: top.slice(0, 10).map(({ node_id, name, degree }) => ({ node_id, name, degree })),
      },
    };
  }
  if (path === '/graph/search') {
    if (!query.q) return invalid('q', 'Field required', null);
    const topK = intParam(query, 'top_k', 1, 100, 10);
    if (typeof topK !== 'number') return topK;
    const words = query.q.toLowerCase().split(/\W+/).filter(Boolean);
    const hits = nodes
      .map((node) => {
        const text = `${node.name} ${node.description}`.toLowerCase();
        return { ...node, score: words.filter((word) => text.includes(word)).length / words.length };
      })
      .filter((node) => node.score > 0)
      .sort((a, b) => b.score - a.score || b.degree - a.degree)
      .slice(0, topK);
    return { status: 200, json: { nodes: hits, count: hits.length } };
  }
  if (path === '/graph/neighbors') {
    const depth = intParam(query, 'depth', 1, 3, 1);
    if (typeof depth !== 'number') return depth;
    const node = find(query.node ?? '');
    if (!node) return { status: 404, json: { detail: `Node '${query.node}' not found` } };
    // Breadth-first over both directions; each edge is reported once, at the hop that first reached it.
    const outEdges: unknown[] = [];
    const inEdges: unknown[] = [];
    const reported = new Set<string>();
    const seen = new Set([node.node_id]);
    let frontier = [node.node_id];
    for (let hop = 1; hop <= depth; hop++) {
      const next: string[] = [];
      for (const id of frontier) {
        for (const edge of edges) {
          const touches = edge.source_node_id === id || edge.target_node_id === id;
          if (!touches || reported.has(edge.edge_id)) continue;
          reported.add(edge.edge_id);
          const shown = depth > 1 ? { ...edge, hop } : edge;
          (edge.source_node_id === id ? outEdges : inEdges).push(shown);
          const far = edge.source_node_id === id ? edge.target_node_id : edge.source_node_id;
          if (!seen.has(far)) {
            seen.add(far);
            next.push(far);
          }
        }
      }
      frontier = next;
    }
    return {
      status: 200,
      json: { node_id: node.node_id, name: node.name, out_edges: outEdges, in_edges: inEdges },
    };
  }
  if (path === '/graph/path') {
    const maxDepth = intParam(query, 'max_depth', 1, 6, 4);
    if (typeof maxDepth !== 'number') return maxDepth;
    const source = find(query.source ?? '');
    const target = find(query.target ?? '');
    if (!source) return { status: 404, json: { detail: `Node '${query.source}' not found` } };
    if (!target) return { status: 404, json: { detail: `Node '${query.target}' not found` } };
    const previous = new Map<string, string | null>([[source.node_id, null]]);
    let frontier = [source.node_id];
    for (let step = 0; step < maxDepth && !previous.has(target.node_id); step++) {
      const next: string[] = [];
      for (const id of frontier) {
        for (const edge of edges.filter((e) => e.source_node_id === id && !previous.has(e.target_node_id))) {
          previous.set(edge.target_node_id, id);
          next.push(edge.target_node_id);
        }
      }
      frontier = next;
    }
    let found: string[] | null = null;
    if (previous.has(target.node_id)) {
      found = [];
      for (let id: string | null = target.node_id; id !== null; id = previous.get(id) ?? null)
        found.unshift(id);
    }
    return {
      status: 200,
      json: {
        source: query.source,
        target: query.target,
        path: found,
        length: found ? found.length - 1 : -1,
      },
    };
  }
  return { status: 404, json: { detail: 'Not Found' } };
}

/** Starts the double; `graphs` maps canonical tenant ids to their graphs (acme:acme and an empty acme:empty). */
export async function startFakeRuntime(
  graphs: Record<string, FakeGraph> = { 'acme:acme': SAMPLE_GRAPH, 'acme:empty': { nodes: [], edges: [] } },
): Promise<FakeRuntime> {
  const requests: SeenRequest[] = [];
  const runtime: FakeRuntime = { url: '', requests, override: undefined, close: async () => {} };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const seen = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
    };
    requests.push(seen);
    const reply = runtime.override?.(seen) ?? answer(graphs, seen);
    if (reply === 'hang') return;
    const json = reply.json !== undefined;
    res.writeHead(reply.status, { 'content-type': json ? 'application/json' : 'text/plain' });
    res.end(json ? JSON.stringify(reply.json) : (reply.text ?? ''));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  runtime.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runtime.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return runtime;
}

/** An Output that keeps every line. */
export function captureOutput(): { output: Output; stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { output: { out: (line) => stdout.push(line), err: (line) => stderr.push(line) }, stdout, stderr };
}
