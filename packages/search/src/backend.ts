/** The search backend port: where tenant schemas (tables) live. */
import type { SchemaTemplate } from './templates';

export interface SearchBackend {
  /** Creates the table for a tenant schema; an existing table is left as it is. */
  deploySchema(schemaName: string, template: SchemaTemplate): Promise<void>;
  /** Every deployed schema (table) name. */
  listSchemas(): Promise<string[]>;
  /** Drops a schema; absent schemas are not an error. */
  dropSchema(schemaName: string): Promise<void>;
  /**
   * Brings a deployed schema to `template`: adds new fields (empty for existing documents); refuses, changing
   * nothing, a change of a field's type or a field's removal, which would need the documents fed again.
   */
  migrateSchema(schemaName: string, template: SchemaTemplate): Promise<MigrationResult>;
  /** Resolves when the backend answers. */
  ping(): Promise<void>;
}

export type MigrationResult = { status: 'migrated'; added: string[] } | { status: 'refused'; reason: string };
