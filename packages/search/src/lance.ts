/** LanceDB adapter of the search backend: a local directory by default, `s3://` in AWS. */
import type { Table } from '@lancedb/lancedb';
import { KeyedSerializer } from '@tessera/core';
import { arrowSchema } from './arrow';
import type { MigrationResult, SearchBackend } from './backend';
import type { LanceDatabase } from './connection';
import type { SchemaTemplate } from './templates';

const PAGE = 1000;
export const PRIMARY_KEY = 'document_id';
const PRIMARY_KEY_METADATA = 'lance-schema:unenforced-primary-key:position';

/** Upserts dedupe on `document_id` even when writers race, once it is the table's (unenforced) primary key. */
async function ensurePrimaryKey(table: Table): Promise<void> {
  const needsKey = async () => {
    const key = (await table.schema()).fields.find((field) => field.name === PRIMARY_KEY);
    return key !== undefined && !key.nullable && !key.metadata.has(PRIMARY_KEY_METADATA);
  };
  if (!(await needsKey())) return;
  try {
    await table.setUnenforcedPrimaryKey(PRIMARY_KEY);
  } catch (error) {
    // A concurrent deploy of the same schema may have set it first.
    await table.checkoutLatest();
    if (await needsKey()) throw error;
  }
}

export class LanceSearchBackend implements SearchBackend {
  /** Deploys of one schema from this process go one at a time (both would create, then set its key). */
  private readonly deploys = new KeyedSerializer();

  constructor(readonly database: LanceDatabase) {}

  get uri(): string {
    return this.database.uri;
  }

  private db() {
    return this.database.connect();
  }

  deploySchema(schemaName: string, template: SchemaTemplate): Promise<void> {
    return this.deploys.run(schemaName, () => this.deploy(schemaName, template));
  }

  private async deploy(schemaName: string, template: SchemaTemplate): Promise<void> {
    let table: Table | undefined;
    try {
      table = await this.database.createTable(schemaName, arrowSchema(template));
    } catch (error) {
      if (!/already exists/i.test((error as Error).message)) throw error;
      // Deployed before; finish a deploy that stopped before its key was set.
      table = await this.database.openTable(schemaName);
      if (!table) throw error;
    }
    await ensurePrimaryKey(table);
  }

  async listSchemas(): Promise<string[]> {
    const db = await this.db();
    const names: string[] = [];
    for (;;) {
      const last = names.at(-1);
      const page = await db.tableNames(
        last === undefined ? { limit: PAGE } : { limit: PAGE, startAfter: last },
      );
      names.push(...page);
      if (page.length < PAGE) return names;
    }
  }

  dropSchema(schemaName: string): Promise<void> {
    return this.database.dropTable(schemaName);
  }

  async migrateSchema(schemaName: string, template: SchemaTemplate): Promise<MigrationResult> {
    const table = await this.database.openTable(schemaName);
    if (!table) {
      await this.deploySchema(schemaName, template);
      return { status: 'migrated', added: template.document.fields.map((f) => f.name) };
    }
    const live = new Map((await table.schema()).fields.map((field) => [field.name, field]));
    const target = arrowSchema(template).fields;
    const problems: string[] = [];
    for (const field of target) {
      const current = live.get(field.name);
      if (current && String(current.type) !== String(field.type)) {
        problems.push(`field '${field.name}' would change type from ${current.type} to ${field.type}`);
      }
    }
    const kept = new Set(target.map((field) => field.name));
    for (const name of live.keys()) if (!kept.has(name)) problems.push(`field '${name}' would be removed`);
    if (problems.length > 0) {
      return {
        status: 'refused',
        reason: `${problems.join('; ')}: drop the tenant schema and feed its documents again`,
      };
    }
    const added = target.filter((field) => !live.has(field.name));
    if (added.length > 0) await table.addColumns(added);
    return { status: 'migrated', added: added.map((field) => field.name) };
  }

  async ping(): Promise<void> {
    const db = await this.db();
    await db.tableNames({ limit: 1 });
  }
}
