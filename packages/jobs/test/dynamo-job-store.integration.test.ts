/** The DynamoDB job store passes its contract against the emulated DynamoDB. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { jobStoreContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll } from 'vitest';
import { DynamoJobStore } from '../src/index';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'job-store-')));
});

afterAll(async () => {
  await emulators?.stop();
});

jobStoreContract('DynamoJobStore', () => new DynamoJobStore());
