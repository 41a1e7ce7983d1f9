/** Nodes, mentions and edges of the knowledge graph, as upserted and as answered. */
import { z } from 'zod';
import { normalizeNodeId } from './ids';

const seconds = z.number().finite().min(0);

export const Mention = z.object({
  source_doc_id: z.string().max(1000).default(''),
  segment_id: z.string().max(1000).default(''),
  ts_start: seconds.default(0),
  ts_end: seconds.default(0),
  modality: z.string().max(50).default('text'),
  evidence_span: z.string().max(10_000).default(''),
});
export type Mention = z.infer<typeof Mention>;

const nodeName = z
  .string()
  .min(1)
  .max(1000)
  .refine((name) => normalizeNodeId(name) !== '', {
    message: 'name has no ASCII letter or digit, so its node_id would be empty',
  });

export const NodeInput = z.object({
  name: nodeName,
  description: z.string().max(10_000).optional(),
  kind: z.enum(['entity', 'concept']).optional(),
  label: z.string().min(1).max(100).optional(),
  mentions: z.array(Mention).max(1000).default([]),
});
export type NodeInput = z.infer<typeof NodeInput>;

export const EdgeInput = z.object({
  source: nodeName,
  target: nodeName,
  relation: z.string().trim().min(1).max(200),
  evidence_span: z.string().max(10_000),
  segment_id: z.string().max(1000),
  ts_start: seconds,
  ts_end: seconds,
  modality: z.string().min(1).max(50),
  provenance: z.string().min(1).max(100).default('EXTRACTED'),
  source_doc_id: z.string().max(1000).optional(),
  confidence: z.number().min(0).max(1).default(1),
});
export type EdgeInput = z.infer<typeof EdgeInput>;

export const MAX_ITEMS = 10_000;

export const UpsertRequest = z.object({
  tenant_id: z.string(),
  source_doc_id: z.string().max(1000).default(''),
  nodes: z.array(NodeInput).max(MAX_ITEMS).default([]),
  edges: z.array(EdgeInput).max(MAX_ITEMS).default([]),
});
export type UpsertRequest = z.infer<typeof UpsertRequest>;

export interface GraphNode {
  node_id: string;
  name: string;
  description: string;
  kind: 'entity' | 'concept';
  label: string;
  mentions: Mention[];
}

export interface GraphEdge {
  edge_id: string;
  source_node_id: string;
  target_node_id: string;
  relation: string;
  evidence_span: string;
  segment_id: string;
  ts_start: number;
  ts_end: number;
  modality: string;
  provenance: string;
  source_doc_id: string;
  confidence: number;
}

export const mentionKey = (m: Mention) =>
  `${m.source_doc_id}\u0000${m.segment_id}\u0000${m.ts_start}\u0000${m.ts_end}\u0000${m.modality}`;
