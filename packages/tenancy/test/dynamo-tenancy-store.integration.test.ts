/** The DynamoDB tenancy store passes the tenancy store contract against the emulated DynamoDB. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { tenancyStoreContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll } from 'vitest';
import { DynamoTenancyStore } from '../src/index';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'tenancy-store-')));
});

afterAll(async () => {
  await emulators?.stop();
});

tenancyStoreContract('DynamoTenancyStore', () => new DynamoTenancyStore());
