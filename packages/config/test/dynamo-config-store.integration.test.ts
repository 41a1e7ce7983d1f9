/** The DynamoDB configuration store passes the configuration store contract against the emulated DynamoDB. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { configStoreContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll } from 'vitest';
import { DynamoConfigStore } from '../src/index';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'config-store-')));
});

afterAll(async () => {
  await emulators?.stop();
});

configStoreContract('DynamoConfigStore', () => new DynamoConfigStore());
