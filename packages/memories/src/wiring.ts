/** The production wiring of memories and instructions, built once per process. */
import { KeyedSerializer } from '@tessera/core';
import { createEmbeddedEncoder, encodersEnv } from '@tessera/encoders';
import { platformEnv } from '@tessera/platform';
import { lanceConnection } from '@tessera/search';
import { tenancy } from '@tessera/tenancy';
import { DynamoInstructionsStore } from './dynamo-instructions-store';
import { LanceMemoryStore } from './lance-memory-store';
import { MEMORY_SCHEMA, type MemoriesDeps } from './service';

let deps: MemoriesDeps | undefined;

export function memories(): MemoriesDeps {
  if (deps) return deps;
  const tenancyDeps = tenancy();
  deps = {
    tenancy: tenancyDeps,
    // The platform's embedded encoder: storing a memory after a run never waits on a model server.
    store: new LanceMemoryStore(
      lanceConnection(platformEnv.searchUri),
      tenancyDeps.catalog.get(MEMORY_SCHEMA)!,
      createEmbeddedEncoder(encodersEnv.embeddedEncoder),
    ),
    instructions: new DynamoInstructionsStore(),
    writes: new KeyedSerializer(),
    now: Date.now,
  };
  return deps;
}
