/** The DynamoDB instructions store passes the instructions store contract against the emulated DynamoDB. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { instructionsStoreContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll } from 'vitest';
import { DynamoInstructionsStore } from '../src/index';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'instructions-store-')));
});

afterAll(async () => {
  await emulators?.stop();
});

instructionsStoreContract('DynamoInstructionsStore', () => new DynamoInstructionsStore());
