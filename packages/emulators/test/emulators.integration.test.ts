import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulators } from '../src/thread';

describe('emulator gateway (integration)', () => {
  it('answers DynamoDB requests in process and passes the others to their emulator', async () => {
    const emulators = await startEmulators({
      dataDir: mkdtempSync(path.join(tmpdir(), 'gateway-')),
      gatewayPort: 0,
    });
    try {
      const dynamodb = await fetch(emulators.gateway, {
        method: 'POST',
        headers: {
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-date': '20260101T000000Z',
          authorization:
            'AWS4-HMAC-SHA256 Credential=key/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        },
        body: '{}',
      });
      expect(dynamodb.status).toBe(200);
      expect(await dynamodb.json()).toEqual({ TableNames: [] });
      const s3 = await fetch(`${emulators.gateway}/`);
      expect(s3.status).toBe(200);
      expect(await s3.text()).toContain('ListAllMyBucketsResult');
    } finally {
      await emulators.stop();
    }
  });
});
