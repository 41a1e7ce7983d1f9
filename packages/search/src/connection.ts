/**
 * One LanceDB connection per database and process: the content index, the graph store and the schema
 * backend of a process share it (each opening its own spent a connection, and its object-store clients,
 * three times over).
 *
 * A table dropped and created again under the same name is another table: its versions count from 1 again,
 * and a connection that has read the first one keeps, in caches keyed by table path and version, index
 * metadata that the second one does not have (LanceDB then reads index files that are gone, and writes and
 * text searches fail). So every table carries an incarnation id in its schema metadata, stamped when it is
 * created, and a connection serves one incarnation of each name: a process that meets another incarnation
 * (a drop here, or a drop and create by another process) opens a new connection, with empty caches.
 * Adapters key what they keep of a table by its `identity`, name and incarnation.
 */
import { randomUUID } from 'node:crypto';
import { type Connection, connect, type Table } from '@lancedb/lancedb';
import type { Schema } from 'apache-arrow';

/** Schema metadata key of a table's incarnation id. */
export const INCARNATION_KEY = 'tessera:incarnation';

/** What opening a table that does not exist fails with (not an index file gone missing, say). */
const noSuchTable = (error: unknown) => /was not found|does not exist/i.test((error as Error).message);

export class LanceDatabase {
  private connection: Promise<Connection> | undefined;
  /** The incarnation of each table the current connection has opened. */
  private seen = new Map<string, string>();
  private readonly identities = new WeakMap<Table, string>();

  constructor(readonly uri: string) {}

  /** The connection, opened on first use; a failed open is tried again by the next caller. */
  connect(): Promise<Connection> {
    this.connection ??= connect(this.uri).catch((error: unknown) => {
      this.connection = undefined;
      throw error;
    });
    return this.connection;
  }

  /** Starts over with a new connection, whose caches know no table yet. */
  private reset(): void {
    this.connection = undefined;
    this.seen = new Map();
  }

  /**
   * The latest version of a table, or undefined when it does not exist. Opened through a connection that
   * has seen no other incarnation of the name.
   */
  async openTable(name: string): Promise<Table | undefined> {
    for (;;) {
      const current = this.connect();
      const db = await current;
      let table: Table;
      try {
        table = await db.openTable(name);
      } catch (error) {
        if (noSuchTable(error)) return undefined;
        throw error;
      }
      const incarnation = incarnationOf(await table.schema());
      // The connection was replaced meanwhile: open again through the new one.
      if (this.connection !== current) continue;
      const known = this.seen.get(name);
      if (known !== undefined && known !== incarnation) {
        this.reset();
        continue;
      }
      this.seen.set(name, incarnation);
      this.identities.set(table, `${name}\u0000${incarnation}`);
      return table;
    }
  }

  /**
   * Name and incarnation of a table this database opened or created: what anything kept of the table in
   * memory is keyed by, so a table dropped and created again is never read through what was kept of the
   * one before.
   */
  identity(table: Table): string {
    const identity = this.identities.get(table);
    if (identity === undefined)
      throw new Error(`Table ${table.name} was not opened through its LanceDatabase`);
    return identity;
  }

  /**
   * Creates an empty table stamped with a new incarnation; fails (`already exists`) when the name is taken.
   */
  async createTable(name: string, schema: Schema): Promise<Table> {
    // This connection knew an earlier table of the name (dropped by another process): start clean.
    if (this.seen.has(name)) this.reset();
    const incarnation = randomUUID();
    const metadata = new Map(schema.metadata);
    metadata.set(INCARNATION_KEY, incarnation);
    const stamped = new (schema.constructor as typeof Schema)(schema.fields, metadata);
    const db = await this.connect();
    const table = await db.createEmptyTable(name, stamped, { mode: 'create' });
    this.seen.set(name, incarnation);
    this.identities.set(table, `${name}\u0000${incarnation}`);
    return table;
  }

  /** Drops a table (absent tables are no error); this connection's caches knew it, so a new one follows. */
  async dropTable(name: string): Promise<void> {
    const db = await this.connect();
    try {
      await db.dropTable(name);
    } catch (error) {
      if (!/not found|does not exist/i.test((error as Error).message)) throw error;
    }
    this.reset();
  }
}

/** A table's incarnation id; tables created before incarnations were stamped share the empty one. */
function incarnationOf(schema: Schema): string {
  return schema.metadata.get(INCARNATION_KEY) ?? '';
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
