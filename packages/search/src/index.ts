export { arrowSchema, arrowType } from './arrow';
export type { MigrationResult, SearchBackend } from './backend';
export { LanceSearchBackend } from './lance';
export { definitionHash, FieldTemplate, SchemaCatalog, SchemaTemplate } from './templates';
