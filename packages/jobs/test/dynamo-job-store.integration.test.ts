/** The DynamoDB job and outbound stores pass their contracts against the emulated DynamoDB. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { jobStoreContract, outboundStoreContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll } from 'vitest';
import { DynamoJobStore, DynamoOutboundStore } from '../src/index';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'job-store-')));
});

afterAll(async () => {
  await emulators?.stop();
});

jobStoreContract('DynamoJobStore', () => new DynamoJobStore());
outboundStoreContract('DynamoOutboundStore', () => new DynamoOutboundStore());
