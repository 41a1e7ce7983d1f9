/** The DynamoDB messaging and outbound stores pass their contracts against the emulated DynamoDB. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { messagingStoreContract, outboundStoreContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll } from 'vitest';
import { DynamoMessagingStore, DynamoOutboundStore } from '../src/index';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'messaging-stores-')));
});

afterAll(async () => {
  await emulators?.stop();
});

messagingStoreContract('DynamoMessagingStore', () => new DynamoMessagingStore());
outboundStoreContract('DynamoOutboundStore', () => new DynamoOutboundStore());
