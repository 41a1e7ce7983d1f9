/** The webhook's DynamoDB update log passes its contract against the emulated DynamoDB. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Emulators, startLocalBackends } from '@tessera/emulators';
import { updateLogContract } from '@tessera/testing/contracts';
import { afterAll, beforeAll } from 'vitest';
import { DynamoUpdateLog } from '../src/aws';

let emulators: Emulators;

beforeAll(async () => {
  emulators = await startLocalBackends(mkdtempSync(path.join(tmpdir(), 'update-log-')));
});

afterAll(async () => {
  await emulators?.stop();
});

updateLogContract('DynamoUpdateLog', () => new DynamoUpdateLog());
