/** The S3 adapter of the blob store: the uploads bucket. */
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { buckets, resourceName, s3Client } from '@tessera/platform';
import type { BlobStore } from './ports';

/** Keys a DeleteObjects request takes at most. */
const DELETE_KEYS = 1000;

export class S3BlobStore implements BlobStore {
  constructor(
    readonly bucket: string = resourceName(buckets.uploads),
    private readonly client: S3Client = s3Client(),
  ) {}

  describe(key: string): string {
    return `s3://${this.bucket}/${key}`;
  }

  async put(key: string, body: Uint8Array): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body }));
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Uint8Array> {
    const answer = await this.client.send(
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Range: range ? `bytes=${range.start}-${range.end - 1}` : undefined,
      }),
    );
    return answer.Body!.transformToByteArray();
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (error) {
      if ((error as { name?: string }).name === 'NotFound') return false;
      throw error;
    }
  }

  async list(prefix: string): Promise<{ key: string; size: number }[]> {
    const found: { key: string; size: number }[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const item of page.Contents ?? []) found.push({ key: item.Key!, size: item.Size ?? 0 });
      token = page.NextContinuationToken;
    } while (token);
    return found;
  }

  async delete(keys: string[]): Promise<void> {
    for (let start = 0; start < keys.length; start += DELETE_KEYS) {
      const slice = keys.slice(start, start + DELETE_KEYS);
      await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: slice.map((Key) => ({ Key })) } }),
      );
    }
  }

  presignPut(
    key: string,
    options: { size: number; contentType?: string; expiresSeconds: number },
  ): Promise<string> {
    // The signed length makes S3 refuse a body of any other size.
    return getSignedUrl(
      this.client,
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ContentLength: options.size,
        ContentType: options.contentType,
      }),
      { expiresIn: options.expiresSeconds },
    );
  }
}
