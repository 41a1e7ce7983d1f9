/**
 * The graph store: each tenant's graph lives in its `knowledge_graph_<org>_<tenant>` table (nodes and edges
 * as rows told apart by `record_type`) and, once read, in memory, where traversals run. Writes go to the
 * table first and reach memory only once they are stored; a table changed by another process is re-read.
 */
import { type Connection, connect, type Table } from '@lancedb/lancedb';
import type { MultiVectorEncoder } from '@tessera/encoders';
import { codeWords, type DocumentRow, documentTable, type SchemaTemplate } from '@tessera/search';
import { edgeId, normalizeNodeId } from './ids';
import { type GraphEdge, type Mention, mentionKey, type UpsertRequest } from './model';
import { type NodeState, TenantGraph } from './tenant-graph';

const COLUMNS = [
  'document_id',
  'record_type',
  'name',
  'description',
  'kind',
  'label',
  'mentions',
  'source',
  'target',
  'relation',
  'evidence_span',
  'segment_id',
  'ts_start',
  'ts_end',
  'modality',
  'provenance',
  'confidence',
  'source_doc_id',
];

export interface UpsertCounts {
  nodes_upserted: number;
  edges_upserted: number;
}

export class GraphStore {
  private connection: Promise<Connection> | undefined;
  private readonly graphs = new Map<string, Promise<TenantGraph>>();
  private readonly writes = new Map<string, Promise<unknown>>();

  constructor(
    readonly uri: string,
    private readonly template: SchemaTemplate,
    private readonly encoder: MultiVectorEncoder,
  ) {}

  private db(): Promise<Connection> {
    this.connection ??= connect(this.uri).catch((error: unknown) => {
      this.connection = undefined;
      throw error;
    });
    return this.connection;
  }

  private async table(schema: string): Promise<Table | undefined> {
    try {
      return await (await this.db()).openTable(schema);
    } catch (error) {
      if (/was not found|does not exist/i.test((error as Error).message)) return undefined;
      throw error;
    }
  }

  /** The tenant's graph as of the table's latest version; empty when the schema is not deployed. */
  async graph(schema: string): Promise<TenantGraph> {
    const table = await this.table(schema);
    if (!table) return new TenantGraph(-1);
    const version = await table.version();
    const cached = this.graphs.get(schema);
    if (cached) {
      const graph = await cached.catch(() => undefined);
      if (graph && graph.version === version) return graph;
    }
    const loading = load(table, version);
    this.graphs.set(schema, loading);
    loading.catch(() => this.graphs.delete(schema));
    return loading;
  }

  /** Upserts serialize per tenant; other tenants' reads and writes go on. */
  upsert(schema: string, request: UpsertRequest): Promise<UpsertCounts> {
    const previous = this.writes.get(schema) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.apply(schema, request));
    this.writes.set(schema, next);
    return next;
  }

  private async apply(schema: string, request: UpsertRequest): Promise<UpsertCounts> {
    const table = await this.table(schema);
    if (!table) throw new Error(`Graph schema ${schema} is not deployed`);
    const graph = await this.graph(schema);

    // Work out every change first; memory changes only after the table took them.
    const changed = new Map<string, NodeState>();
    const touched = new Set<string>();
    const nodeOf = (id: string) => changed.get(id) ?? graph.nodes.get(id);
    const mergeNode = (
      name: string,
      patch: { description?: string; kind?: 'entity' | 'concept'; label?: string; mentions: Mention[] },
    ) => {
      const id = normalizeNodeId(name);
      touched.add(id);
      const current = nodeOf(id);
      const description = patch.description ?? '';
      const next: NodeState = current
        ? { ...current, mentions: [...current.mentions], mentionKeys: new Set(current.mentionKeys) }
        : {
            node_id: id,
            name,
            description: '',
            kind: 'concept',
            label: 'Concept',
            mentions: [],
            mentionKeys: new Set(),
            codes: new Uint32Array(0),
            tokens: 0,
          };
      let dirty = !current;
      if (description.length > next.description.length) {
        next.description = description;
        dirty = true;
      }
      if (patch.kind && patch.kind !== next.kind) {
        next.kind = patch.kind;
        dirty = true;
      }
      if (patch.label && patch.label !== next.label) {
        next.label = patch.label;
        dirty = true;
      }
      for (const mention of patch.mentions) {
        const key = mentionKey(mention);
        if (next.mentionKeys.has(key)) continue;
        next.mentionKeys.add(key);
        next.mentions.push(mention);
        dirty = true;
      }
      if (dirty) changed.set(id, next);
    };

    for (const node of request.nodes) mergeNode(node.name, node);
    const edges = new Map<string, GraphEdge>();
    for (const edge of request.edges) {
      const source = normalizeNodeId(edge.source);
      const target = normalizeNodeId(edge.target);
      if (!nodeOf(source)) mergeNode(edge.source, { mentions: [] });
      if (!nodeOf(target)) mergeNode(edge.target, { mentions: [] });
      touched.add(source).add(target);
      const id = edgeId(source, edge.relation, target, edge.segment_id, edge.ts_start, edge.ts_end);
      const stored: GraphEdge = {
        edge_id: id,
        source_node_id: source,
        target_node_id: target,
        relation: edge.relation,
        evidence_span: edge.evidence_span,
        segment_id: edge.segment_id,
        ts_start: edge.ts_start,
        ts_end: edge.ts_end,
        modality: edge.modality,
        provenance: edge.provenance,
        source_doc_id: edge.source_doc_id ?? request.source_doc_id,
        confidence: edge.confidence,
      };
      const existing = graph.edges.get(id);
      if (!existing || !sameEdge(existing, stored)) edges.set(id, stored);
    }

    // Embed the nodes whose text changed.
    const toEmbed = [...changed.values()].filter((node) => {
      const before = graph.nodes.get(node.node_id);
      return !before || before.description !== node.description || before.name !== node.name;
    });
    for (let start = 0; start < toEmbed.length; start += 512) {
      const batch = toEmbed.slice(start, start + 512);
      const vectors = await this.encoder.encode(
        batch.map((node) => `${node.name} ${node.description}`.trim()),
        'document',
      );
      batch.forEach((node, i) => {
        node.tokens = vectors[i]!.tokens;
        node.codes = codeWords(vectors[i]!.binary).slice();
        (node as NodeState & { vectors?: Float32Array }).vectors = vectors[i]!.vectors;
      });
    }

    const now = Date.now();
    let commits = 0;
    if (changed.size > 0) {
      const rows: DocumentRow[] = [...changed.values()].map((node) => nodeRow(node, now));
      await table
        .mergeInsert('document_id')
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute(documentTable(this.template, rows) as never);
      commits++;
    }
    if (edges.size > 0) {
      const fresh = [...edges.values()]
        .filter((edge) => !graph.edges.has(edge.edge_id))
        .map((edge) => edgeRow(edge, now));
      const updated = [...edges.values()]
        .filter((edge) => graph.edges.has(edge.edge_id))
        .map((edge) => edgeRow(edge, now));
      if (fresh.length > 0) {
        await table.add(documentTable(this.template, fresh) as never);
        commits++;
      }
      if (updated.length > 0) {
        await table
          .mergeInsert('document_id')
          .whenMatchedUpdateAll()
          .whenNotMatchedInsertAll()
          .execute(documentTable(this.template, updated) as never);
        commits++;
      }
    }

    // Stored: now memory. A version that moved by more than our own commits means another writer too.
    const version = await table.version();
    for (const node of changed.values()) {
      delete (node as NodeState & { vectors?: Float32Array }).vectors;
      graph.setNode(node);
    }
    for (const edge of edges.values()) graph.addEdge(edge);
    if (version === graph.version + commits) graph.version = version;
    else this.graphs.delete(schema);

    const requested = new Set([...request.nodes.map((n) => normalizeNodeId(n.name)), ...touched]);
    const edgeIds = new Set(
      request.edges.map((e) =>
        edgeId(
          normalizeNodeId(e.source),
          e.relation,
          normalizeNodeId(e.target),
          e.segment_id,
          e.ts_start,
          e.ts_end,
        ),
      ),
    );
    return { nodes_upserted: requested.size, edges_upserted: edgeIds.size };
  }
}

function sameEdge(a: GraphEdge, b: GraphEdge): boolean {
  return (
    a.evidence_span === b.evidence_span &&
    a.modality === b.modality &&
    a.provenance === b.provenance &&
    a.source_doc_id === b.source_doc_id &&
    a.confidence === b.confidence
  );
}

function nodeRow(node: NodeState & { vectors?: Float32Array }, now: number): DocumentRow {
  return {
    document_id: node.node_id,
    record_type: 'node',
    node_id: node.node_id,
    name: node.name,
    description: node.description,
    kind: node.kind,
    label: node.label,
    mentions: JSON.stringify(node.mentions),
    embedding: node.vectors ? { tokens: node.tokens, values: node.vectors } : undefined,
    embedding_binary: {
      tokens: node.tokens,
      values: new Uint8Array(node.codes.buffer, node.codes.byteOffset, node.codes.byteLength),
    },
    updated_at: now,
  };
}

function edgeRow(edge: GraphEdge, now: number): DocumentRow {
  return {
    document_id: edge.edge_id,
    record_type: 'edge',
    source: edge.source_node_id,
    target: edge.target_node_id,
    relation: edge.relation,
    evidence_span: edge.evidence_span,
    segment_id: edge.segment_id,
    ts_start: edge.ts_start,
    ts_end: edge.ts_end,
    modality: edge.modality,
    provenance: edge.provenance,
    confidence: edge.confidence,
    source_doc_id: edge.source_doc_id,
    updated_at: now,
  };
}

async function load(table: Table, version: number): Promise<TenantGraph> {
  const graph = new TenantGraph(version);
  const result = await table
    .query()
    .select([...COLUMNS, 'embedding_binary'])
    .toArrow();
  for (const batch of result.batches) {
    const column = (name: string) => batch.getChild(name)!;
    const [
      ids,
      types,
      names,
      descriptions,
      kinds,
      labels,
      mentions,
      sources,
      targets,
      relations,
      spans,
      segments,
      starts,
      ends,
      modalities,
      provenances,
      confidences,
      docs,
    ] = COLUMNS.map(column);
    const binary = batch.getChild('embedding_binary')!.data[0]!;
    const offsets = binary.valueOffsets as Int32Array;
    const bytes = binary.children[0]!.children[0]!.values as Uint8Array;
    for (let row = 0; row < batch.numRows; row++) {
      const id = String(ids!.get(row));
      if (types!.get(row) === 'node') {
        const nodeMentions = JSON.parse(String(mentions!.get(row) ?? '[]')) as Mention[];
        const start = offsets[row]!;
        const tokens = offsets[row + 1]! - start;
        graph.setNode({
          node_id: id,
          name: String(names!.get(row) ?? id),
          description: String(descriptions!.get(row) ?? ''),
          kind: kinds!.get(row) === 'entity' ? 'entity' : 'concept',
          label: String(labels!.get(row) ?? 'Concept'),
          mentions: nodeMentions,
          mentionKeys: new Set(nodeMentions.map(mentionKey)),
          codes: codeWords(bytes.slice(start * 16, (start + tokens) * 16)),
          tokens,
        });
      } else {
        graph.addEdge({
          edge_id: id,
          source_node_id: String(sources!.get(row)),
          target_node_id: String(targets!.get(row)),
          relation: String(relations!.get(row)),
          evidence_span: String(spans!.get(row) ?? ''),
          segment_id: String(segments!.get(row) ?? ''),
          ts_start: Number(starts!.get(row) ?? 0),
          ts_end: Number(ends!.get(row) ?? 0),
          modality: String(modalities!.get(row) ?? ''),
          provenance: String(provenances!.get(row) ?? ''),
          source_doc_id: String(docs!.get(row) ?? ''),
          confidence: Number(confidences!.get(row) ?? 1),
        });
      }
    }
  }
  return graph;
}
