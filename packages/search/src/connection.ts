/**
 * One LanceDB connection per database and process: the content index, the graph store and the schema
 * backend of a process share it (each opening its own spent a connection, and its object-store clients,
 * three times over).
 */
import { type Connection, connect, type Table } from '@lancedb/lancedb';

export class LanceDatabase {
  private connection: Promise<Connection> | undefined;

  constructor(readonly uri: string) {}

  /** The connection, opened on first use; a failed open is tried again by the next caller. */
  connect(): Promise<Connection> {
    this.connection ??= connect(this.uri).catch((error: unknown) => {
      this.connection = undefined;
      throw error;
    });
    return this.connection;
  }

  /** The latest version of a table, or undefined when it does not exist. */
  async openTable(name: string): Promise<Table | undefined> {
    const db = await this.connect();
    try {
      return await db.openTable(name);
    } catch (error) {
      if (/was not found|does not exist/i.test((error as Error).message)) return undefined;
      throw error;
    }
  }
}

const databases = new Map<string, LanceDatabase>();

/** The process's database at `uri`: every adapter asking for the same uri shares its connection. */
export function lanceConnection(uri: string): LanceDatabase {
  let database = databases.get(uri);
  if (!database) {
    database = new LanceDatabase(uri);
    databases.set(uri, database);
  }
  return database;
}
