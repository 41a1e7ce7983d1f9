/** The plain objects the code extractor emits; the graph package validates and stores them by these field names. */

export type CodeLanguage = 'python' | 'javascript' | 'typescript' | 'go';

export type DefinitionKind = 'function' | 'method' | 'class' | 'struct' | 'interface' | 'type';

export type CodeRelation = 'defines' | 'imports' | 'calls';

export interface CodeMention {
  source_doc_id: string;
  segment_id: string;
  ts_start: number;
  ts_end: number;
  modality: 'code';
  evidence_span: string;
}

export interface CodeNode {
  name: string;
  description: string;
  kind: 'entity';
  label: 'Concept';
  mentions: CodeMention[];
}

/** `source` and `target` are node names; node ids are derived from them later by normalization. */
export interface CodeEdge {
  source: string;
  target: string;
  relation: CodeRelation;
  evidence_span: string;
  segment_id: string;
  ts_start: number;
  ts_end: number;
  modality: 'code';
  provenance: 'EXTRACTED';
  source_doc_id: string;
  confidence: number;
}

export interface CodeExtraction {
  nodes: CodeNode[];
  edges: CodeEdge[];
  language: CodeLanguage;
}

export interface ExtractOptions {
  /** `source_doc_id` of every mention and edge; defaults to the path. */
  sourceDocId?: string;
}
