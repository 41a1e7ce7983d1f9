/**
 * The tenant's namespace in the uploads bucket (a Kubernetes namespace's AWS equivalent): its prefix, probed
 * by writing, reading and deleting an object, and the bytes of the tenant's uploads under it and the upload
 * prefixes.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { buckets, resourceName, s3Client } from '@tessera/platform';

export interface NamespaceStore {
  /** The bucket the namespace lives in (for the records). */
  readonly bucket: string;
  /** Writes, reads back and deletes a probe object under `prefix`; throws naming what failed. */
  probe(prefix: string): Promise<void>;
  /** Bytes stored under the prefixes. */
  usedBytes(prefixes: string[]): Promise<number>;
}

export class S3Namespace implements NamespaceStore {
  readonly bucket = resourceName(buckets.uploads);

  async probe(prefix: string): Promise<void> {
    const key = `${prefix}.provisioning-probe-${Date.now()}`;
    const body = `probe ${key}`;
    const s3 = s3Client();
    await s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body }));
    try {
      const read = await s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const text = await read.Body?.transformToString();
      if (text !== body) throw new Error(`probe object ${key} read back differently`);
    } finally {
      await s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    }
  }

  async usedBytes(prefixes: string[]): Promise<number> {
    let total = 0;
    for (const prefix of prefixes) {
      let token: string | undefined;
      do {
        const page = await s3Client().send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) total += object.Size ?? 0;
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    }
    return total;
  }
}
