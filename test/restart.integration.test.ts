import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { jobEnded, upload } from './support/ingestion';
import { call, spawnRuntime, tempDataDir } from './support/runtime';

const s3 = (endpoint: string) =>
  new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });

async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A TCP port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The addresses a process listens on (TCP, from /proc), as `address:port`. */
function listeningAddresses(pid: number): string[] {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined;
        }
      })
      .filter((inode) => inode !== undefined),
  );
  const addresses: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state !== '0A' || !inodes.has(inode!)) continue;
      const [hex, port] = local!.split(':');
      const address =
        hex!.length === 8
          ? hex!
              .match(/../g)!
              .reverse()
              .map((byte) => Number.parseInt(byte, 16))
              .join('.')
          : hex === '00000000000000000000000001000000'
            ? '::1'
            : hex === '00000000000000000000000000000000'
              ? '::'
              : hex!;
      addresses.push(`${address}:${Number.parseInt(port!, 16)}`);
    }
  }
  return addresses;
}

describe('runtime restarts (integration)', () => {
  it('listens on loopback only, hands out URLs of the one emulator endpoint, and a presigned PUT works after a restart', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    const env = { TESSERA_EMULATOR_PORT: String(port) };
    const first = await spawnRuntime({ dataDir, env });
    let second: Awaited<ReturnType<typeof spawnRuntime>> | undefined;
    try {
      const endpoint = `http://127.0.0.1:${port}`;
      expect(first.emulatorUrl).toBe(endpoint);
      const listening = listeningAddresses(first.child.pid!);
      expect(listening).toContain(`127.0.0.1:${port}`);
      expect(listening.filter((address) => !address.startsWith('127.0.0.1:'))).toEqual([]);

      const sqs = new SQSClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'tessera-local-ingestion' }));
      expect(new URL(QueueUrl!).origin).toBe(endpoint);

      expect((await call(first.url, 'POST', '/admin/tenants', { tenant_id: 'acme:prod' })).status).toBe(201);
      const content = '# Later\n\nA file sent after a restart.';
      const presigned = await call(first.url, 'POST', '/ingestion/uploads', {
        tenant_id: 'acme:prod',
        filename: 'later.md',
        size: Buffer.byteLength(content),
      });
      expect(presigned.status).toBe(201);
      expect(new URL(presigned.body.upload.url).origin).toBe(endpoint);
      expect(await first.stop('SIGINT')).toBe(0);

      second = await spawnRuntime({ dataDir, env });
      const put = await fetch(presigned.body.upload.url, {
        method: 'PUT',
        headers: presigned.body.upload.headers,
        body: content,
      });
      expect(put.status).toBe(200);
      const job = await jobEnded(second.url, presigned.body.job_id);
      expect(job).toMatchObject({ state: 'complete', result: { files: [{ status: 'indexed' }] } });
    } finally {
      await second?.stop();
      await first.stop();
    }
  });

  it('shuts down cleanly on Ctrl-C and sees every earlier record, object and table after a restart', async () => {
    const dataDir = tempDataDir();
    const first = await spawnRuntime({ dataDir });
    expect(
      (await call(first.url, 'POST', '/admin/tenants', { tenant_id: 'acme:prod', created_by: 'a' })).status,
    ).toBe(201);
    expect((await call(first.url, 'PUT', '/admin/tenants/acme:prod/tier', { tier: 'pro' })).status).toBe(200);
    await s3(first.emulatorUrl!).send(
      new PutObjectCommand({ Bucket: 'tessera-local-uploads', Key: 'acme/prod/readme.md', Body: '# hello' }),
    );
    expect(await first.stop('SIGINT')).toBe(0);
    expect(first.output()).toMatch(/shutting down/);

    const second = await spawnRuntime({ dataDir });
    try {
      expect((await call(second.url, 'GET', '/admin/tenants/acme:prod')).body).toMatchObject({
        status: 'active',
      });
      expect((await call(second.url, 'GET', '/admin/tenants/acme:prod/tier')).body.tier).toBe('pro');
      expect((await call(second.url, 'GET', '/admin/organizations/acme')).body.tenant_count).toBe(1);
      const object = await s3(second.emulatorUrl!).send(
        new GetObjectCommand({ Bucket: 'tessera-local-uploads', Key: 'acme/prod/readme.md' }),
      );
      expect(await object.Body?.transformToString()).toBe('# hello');
      expect((await call(second.url, 'DELETE', '/admin/tenants/acme:prod')).body.deleted_schemas).toEqual([
        'video_frames_acme_prod',
      ]);
    } finally {
      await second.stop();
    }
  });

  it('leaves a tenant absent when the runtime dies in the middle of its create', async () => {
    const dataDir = tempDataDir();
    const env = { TESSERA_TENANT_CREATE_LEASE_SECONDS: '1' };
    const doomed = await spawnRuntime({
      dataDir,
      env: { ...env, TESSERA_FAILPOINTS: 'tenant.create.after_deploy' },
    });
    await expect(call(doomed.url, 'POST', '/admin/tenants', { tenant_id: 'crash' })).rejects.toThrow();
    expect(await doomed.stop()).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const restarted = await spawnRuntime({ dataDir, env });
    try {
      expect((await call(restarted.url, 'GET', '/admin/tenants/crash')).status).toBe(404);
      // The startup sweep rolls the create back: the organization it made and its table go too.
      const orgs = await until(
        () => call(restarted.url, 'GET', '/admin/organizations'),
        (answer) => answer.body.total_count === 0,
      );
      expect(orgs.body.total_count).toBe(0);
      const orphans = await call(restarted.url, 'POST', '/admin/reconcile-orphans');
      expect(orphans.body).toMatchObject({ orphan_schemas: [], tenant_orphan_schemas: [] });
      expect((await call(restarted.url, 'POST', '/admin/tenants', { tenant_id: 'crash' })).status).toBe(201);
    } finally {
      await restarted.stop();
    }
  });

  it('leaves a tenant marked deleted when the runtime dies in the middle of its delete, and a repeated delete finishes', async () => {
    const dataDir = tempDataDir();
    const first = await spawnRuntime({ dataDir });
    expect((await call(first.url, 'POST', '/admin/tenants', { tenant_id: 'doomed' })).status).toBe(201);
    await first.stop();

    const dying = await spawnRuntime({ dataDir, env: { TESSERA_FAILPOINTS: 'tenant.delete.after_mark' } });
    await expect(call(dying.url, 'DELETE', '/admin/tenants/doomed')).rejects.toThrow();
    expect(await dying.stop()).toBeNull();

    const restarted = await spawnRuntime({ dataDir });
    try {
      expect((await call(restarted.url, 'GET', '/admin/tenants/doomed')).body.status).toBe('marked_deleted');
      const refused = await call(restarted.url, 'PUT', '/admin/tenants/doomed/tier', { tier: 'pro' });
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toMatch(/marked deleted/);
      expect((await call(restarted.url, 'DELETE', '/admin/tenants/doomed')).body).toEqual({
        status: 'deleted',
        tenant_full_id: 'doomed:doomed',
        schemas_deleted: 1,
        deleted_schemas: ['video_frames_doomed_doomed'],
      });
      expect((await call(restarted.url, 'GET', '/admin/tenants/doomed')).status).toBe(404);
    } finally {
      await restarted.stop();
    }
  });

  it('finishes a delete that died after purging the tenant data, and the tenant created again starts empty', async () => {
    const dataDir = tempDataDir();
    const first = await spawnRuntime({ dataDir });
    expect((await call(first.url, 'POST', '/admin/tenants', { tenant_id: 'halfway' })).status).toBe(201);
    const content = 'Halfway notes on the okapi.';
    const before = await upload(first.url, { tenant_id: 'halfway', wait: 'true' }, [
      { name: 'n.md', content },
    ]);
    expect(before.body).toMatchObject({ status: 'complete', documents_fed: 1 });
    await first.stop();

    const dying = await spawnRuntime({ dataDir, env: { TESSERA_FAILPOINTS: 'tenant.delete.after_purge' } });
    await expect(call(dying.url, 'DELETE', '/admin/tenants/halfway')).rejects.toThrow();
    expect(await dying.stop()).toBeNull();

    const restarted = await spawnRuntime({ dataDir });
    try {
      expect((await call(restarted.url, 'GET', '/admin/tenants/halfway')).body.status).toBe('marked_deleted');
      expect((await call(restarted.url, 'DELETE', '/admin/tenants/halfway')).body.deleted_schemas).toEqual([
        'document_text_halfway_halfway',
        'video_frames_halfway_halfway',
      ]);
      expect((await call(restarted.url, 'POST', '/admin/tenants', { tenant_id: 'halfway' })).status).toBe(
        201,
      );
      const again = await upload(restarted.url, { tenant_id: 'halfway', wait: 'true' }, [
        { name: 'n.md', content },
      ]);
      expect(again.body).toMatchObject({ status: 'complete', documents_fed: 1, files_skipped: 0 });
    } finally {
      await restarted.stop();
    }
  });

  it('starts no emulators when AWS_ENDPOINT_URL is set and shares state with the runtime it points at', async () => {
    const dataDir = tempDataDir();
    const first = await spawnRuntime({ dataDir });
    // A second runtime with its own emulators cannot open the same stores, and says how to share them.
    await expect(spawnRuntime({ dataDir })).rejects.toThrow(
      new RegExp(`in use by another Tessera runtime .*AWS_ENDPOINT_URL=${first.emulatorUrl}`),
    );
    const second = await spawnRuntime({ dataDir, env: { AWS_ENDPOINT_URL: first.emulatorUrl! } });
    try {
      expect(second.emulatorUrl).toBeUndefined();
      expect(second.output()).not.toMatch(/AWS emulators at/);
      expect((await call(first.url, 'POST', '/admin/tenants', { tenant_id: 'shared' })).status).toBe(201);
      expect((await call(second.url, 'GET', '/admin/tenants/shared')).body.status).toBe('active');
      expect((await call(second.url, 'POST', '/admin/tenants', { tenant_id: 'shared' })).status).toBe(409);
      expect((await call(second.url, 'GET', '/health')).body.status).toBe('ok');

      // With the emulators gone, health says which services are down and requests answer 503, not 500.
      await first.stop();
      const health = await call(second.url, 'GET', '/health');
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('degraded');
      expect(health.body.services.dynamodb.status).toBe('unavailable');
      expect(health.body.services.search_backend.status).toBe('ok');
      const refused = await call(second.url, 'GET', '/admin/tenants/shared');
      expect(refused.status).toBe(503);
      expect(refused.body.detail.error).toBe('service_unavailable');
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});
