/** The DynamoDB conversation and harness key stores pass their contracts against the emulated DynamoDB. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { conversationStoreContract, harnessKeyStoreContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll } from 'vitest';
import { DynamoConversationStore, DynamoHarnessKeyStore } from '../src/index';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'chat-stores-')));
});

afterAll(async () => {
  await emulators?.stop();
});

conversationStoreContract('DynamoConversationStore', () => new DynamoConversationStore());
harnessKeyStoreContract('DynamoHarnessKeyStore', () => new DynamoHarnessKeyStore());
