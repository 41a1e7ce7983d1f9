/** The DynamoDB profile store passes the profile store contract against the emulated DynamoDB. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { profileStoreContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll } from 'vitest';
import { DynamoProfileStore } from '../src/index';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'profile-store-')));
});

afterAll(async () => {
  await emulators?.stop();
});

profileStoreContract('DynamoProfileStore', () => new DynamoProfileStore());
