/** Object keys in the uploads bucket: where each kind of upload lands, and the job a key belongs to. */
import { randomBytes } from 'node:crypto';

export const newJobId = () => `ingest_${randomBytes(8).toString('hex')}`;

/** Files posted to `/ingestion/upload`: one object holding them one after another. */
export const uploadKey = (tenantId: string, jobId: string) => `jobs/${tenantId}/${jobId}/files`;

/** Presigned uploads: the bucket notifies the queue of objects under this prefix, which starts their job. */
export const INCOMING_PREFIX = 'incoming/';
export const incomingKey = (tenantId: string, jobId: string, name: string) =>
  `${INCOMING_PREFIX}${tenantId}/${jobId}/${name}`;

/** Files a tenant placed in the bucket itself, for `/ingestion/start`. */
export const tenantPrefix = (tenantId: string) => `tenants/${tenantId}/`;

/** The job of an `incoming/` key, or undefined for keys the worker does not start jobs from. */
export function jobOfIncomingKey(key: string): string | undefined {
  if (!key.startsWith(INCOMING_PREFIX)) return undefined;
  return /^ingest_[0-9a-f]{16}$/.exec(key.slice(INCOMING_PREFIX.length).split('/')[1] ?? '')?.[0];
}

/**
 * A file name as a source id: forward slashes, no empty, `.` or `..` segments, no leading slash, so a name
 * can never address another tenant's objects. Undefined when nothing usable remains.
 */
export function cleanName(raw: string): string | undefined {
  const segments = raw
    .replace(/\\/g, '/')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..');
  const name = segments.join('/');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (name === '' || name.length > 1000 || /[\u0000-\u001f]/.test(name)) return undefined;
  return name;
}
