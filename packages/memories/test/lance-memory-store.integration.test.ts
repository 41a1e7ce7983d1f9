/** The LanceDB memory store passes the memory store contract on tables in a temporary directory. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmbeddedEncoder } from '@tessera/encoders';
import { LanceDatabase, LanceSearchBackend, lanceConnection } from '@tessera/search';
import { memoryStoreContract } from '@tessera/testing/contracts';
import { schemaCatalog } from '@tessera/testing/fakes';
import { LanceMemoryStore } from '../src/index';

const dir = mkdtempSync(path.join(tmpdir(), 'memories-'));
const template = schemaCatalog.get('agent_memories')!;
// The platform's embedded encoder, as production wires it.
const encoder = createEmbeddedEncoder('glove-lexical-128');

memoryStoreContract('LanceMemoryStore', () => ({
  store: new LanceMemoryStore(lanceConnection(dir), template, encoder),
  // Its own connection, as another process has.
  other: () => new LanceMemoryStore(new LanceDatabase(dir), template, encoder),
  deploy: (schema) => new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template),
  drop: (schema) => new LanceSearchBackend(lanceConnection(dir)).dropSchema(schema),
}));
