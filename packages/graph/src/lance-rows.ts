/** A tenant graph's rows in its LanceDB table: nodes and edges as rows told apart by `record_type`. */
import type { Table } from '@lancedb/lancedb';
import { codeWords, type DocumentRow } from '@tessera/search';
import { type GraphEdge, type Mention, mentionKey } from './model';
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

/** A node's row; without `vectors` (its text did not change) the float embedding is left empty. */
export function nodeRow(node: NodeState, vectors: Float32Array | undefined, now: number): DocumentRow {
  return {
    document_id: node.node_id,
    record_type: 'node',
    node_id: node.node_id,
    name: node.name,
    description: node.description,
    kind: node.kind,
    label: node.label,
    mentions: JSON.stringify(node.mentions),
    embedding: vectors ? { tokens: node.tokens, values: vectors } : undefined,
    embedding_binary: {
      tokens: node.tokens,
      values: new Uint8Array(node.codes.buffer, node.codes.byteOffset, node.codes.byteLength),
    },
    updated_at: now,
  };
}

export function edgeRow(edge: GraphEdge, now: number): DocumentRow {
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

/** The whole graph of a table version, read column by column. */
export async function loadGraph(table: Table, version: number): Promise<TenantGraph> {
  const graph = new TenantGraph(version);
  await readRows(table, graph);
  return graph;
}

/**
 * Reads the table's rows (those after row id `after`, when given) into `graph`: a node or edge read again
 * replaces the one it had. Moves the graph's row watermark to the highest row id read.
 */
export async function readRows(table: Table, graph: TenantGraph, after?: bigint): Promise<number> {
  let query = table
    .query()
    .withRowId()
    .select([...COLUMNS, 'embedding_binary']);
  if (after !== undefined) query = query.where(`_rowid > ${after}`);
  const result = await query.toArrow();
  for (const batch of result.batches) {
    const rowIds = batch.getChild('_rowid')!;
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
      const rowId = BigInt(rowIds.get(row));
      if (graph.rowWatermark === undefined || rowId > graph.rowWatermark) graph.rowWatermark = rowId;
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
  return result.numRows;
}
