/** The search backend port: where tenant schemas (tables) live. */
import type { SchemaTemplate } from './templates';

export interface SearchBackend {
  /** Creates the table for a tenant schema; an existing table is left as it is. */
  deploySchema(schemaName: string, template: SchemaTemplate): Promise<void>;
  /** Every deployed schema (table) name. */
  listSchemas(): Promise<string[]>;
  /** Drops a schema; absent schemas are not an error. */
  dropSchema(schemaName: string): Promise<void>;
  /** Resolves when the backend answers. */
  ping(): Promise<void>;
}
