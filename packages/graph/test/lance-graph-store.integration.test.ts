/** The LanceDB graph store passes the graph store contract on a table in a temporary directory. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HashedTokenEncoder } from '@tessera/encoders';
import { LanceDatabase, LanceSearchBackend, lanceConnection } from '@tessera/search';
import { graphStoreContract } from '@tessera/testing/contracts';
import { schemaCatalog } from '@tessera/testing/fakes';
import { LanceGraphStore } from '../src/index';

const dir = mkdtempSync(path.join(tmpdir(), 'graph-'));
const template = schemaCatalog.get('knowledge_graph')!;
const encoder = new HashedTokenEncoder();

graphStoreContract('LanceGraphStore', () => ({
  store: new LanceGraphStore(lanceConnection(dir), template, encoder),
  // Its own connection, as another process has.
  other: () => new LanceGraphStore(new LanceDatabase(dir), template, encoder),
  deploy: (schema) => new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template),
  drop: (schema) => new LanceSearchBackend(lanceConnection(dir)).dropSchema(schema),
}));
