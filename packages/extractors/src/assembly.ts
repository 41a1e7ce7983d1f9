/** Collects the nodes and edges of one file: one node per name (mentions merged), one edge per relation triple. */
import type { CodeEdge, CodeNode, CodeRelation } from './types';

/** Evidence is cut lazily: a call repeated a hundred times in a function costs one slice, not a hundred. */
export type Evidence = () => string;

export class Assembly {
  private readonly nodes = new Map<string, { node: CodeNode; imported: boolean }>();
  private readonly edges = new Map<string, CodeEdge>();

  constructor(private readonly sourceDocId: string) {}

  /** Adds a node or a mention of it; a definition's description replaces an import's. */
  node(name: string, description: string, segmentId: string, evidence: Evidence, imported = false): void {
    const existing = this.nodes.get(name);
    if (existing) {
      if (existing.imported && !imported) {
        existing.node.description = description;
        existing.imported = false;
      }
      if (existing.node.mentions.some((mention) => mention.segment_id === segmentId)) return;
      existing.node.mentions.push(this.mention(segmentId, evidence()));
      return;
    }
    this.nodes.set(name, {
      imported,
      node: {
        name,
        description,
        kind: 'entity',
        label: 'Concept',
        mentions: [this.mention(segmentId, evidence())],
      },
    });
  }

  edge(source: string, target: string, relation: CodeRelation, segmentId: string, evidence: Evidence): void {
    const key = `${relation}\u0000${source}\u0000${target}`;
    if (this.edges.has(key)) return;
    this.edges.set(key, {
      source,
      target,
      relation,
      evidence_span: evidence(),
      segment_id: segmentId,
      ts_start: 0,
      ts_end: 0,
      modality: 'code',
      provenance: 'EXTRACTED',
      source_doc_id: this.sourceDocId,
      confidence: 1,
    });
  }

  result(): { nodes: CodeNode[]; edges: CodeEdge[] } {
    return { nodes: [...this.nodes.values()].map((entry) => entry.node), edges: [...this.edges.values()] };
  }

  private mention(segmentId: string, evidence: string) {
    return {
      source_doc_id: this.sourceDocId,
      segment_id: segmentId,
      ts_start: 0,
      ts_end: 0,
      modality: 'code' as const,
      evidence_span: evidence,
    };
  }
}
