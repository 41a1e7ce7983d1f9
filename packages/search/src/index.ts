export { arrowSchema, arrowType } from './arrow';
export type { MigrationResult, SearchBackend } from './backend';
export { LanceSearchBackend } from './lance';
export type { Relevance } from './metrics';
export { ndcg, precision, recall, reciprocalRank, reciprocalRankFusion } from './metrics';
export { definitionHash, FieldTemplate, SchemaCatalog, SchemaTemplate } from './templates';
