/** Nodes, mentions and edges of the knowledge graph, as upserted and as answered: @tessera/api's shapes. */
import { Graph } from '@tessera/api';
import type { z } from 'zod';

export const { EdgeInput, MAX_ITEMS, Mention, NodeInput, UpsertRequest } = Graph;
export type EdgeInput = Graph.EdgeInput;
export type GraphEdge = Graph.GraphEdge;
export type GraphNode = Graph.GraphNode;
export type Mention = Graph.Mention;
export type NodeInput = Graph.NodeInput;
export type UpsertRequest = Graph.UpsertRequest;

/** What one upsert writes into a tenant's graph: the request without its tenant. */
export const GraphWrite = UpsertRequest.omit({ tenant_id: true });
export type GraphWrite = z.infer<typeof GraphWrite>;

export const mentionKey = (m: Mention) =>
  `${m.source_doc_id}\u0000${m.segment_id}\u0000${m.ts_start}\u0000${m.ts_end}\u0000${m.modality}`;
