/** LanceDB adapter of the search backend: a local directory by default, `s3://` in AWS. */
import { type Connection, connect } from '@lancedb/lancedb';
import { arrowSchema } from './arrow';
import type { SearchBackend } from './backend';
import type { SchemaTemplate } from './templates';

const PAGE = 1000;

export class LanceSearchBackend implements SearchBackend {
  private connection: Promise<Connection> | undefined;

  constructor(private readonly uri: string) {}

  private db(): Promise<Connection> {
    this.connection ??= connect(this.uri).catch((error: unknown) => {
      this.connection = undefined;
      throw error;
    });
    return this.connection;
  }

  async deploySchema(schemaName: string, template: SchemaTemplate): Promise<void> {
    const db = await this.db();
    await db.createEmptyTable(schemaName, arrowSchema(template), { mode: 'create', existOk: true });
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

  async dropSchema(schemaName: string): Promise<void> {
    const db = await this.db();
    try {
      await db.dropTable(schemaName);
    } catch (error) {
      if (!/not found|does not exist/i.test((error as Error).message)) throw error;
    }
  }

  async ping(): Promise<void> {
    const db = await this.db();
    await db.tableNames({ limit: 1 });
  }
}
