/**
 * How large a request may be. Through API Gateway a Lambda function receives the whole request as one
 * event of at most 6 MiB (6,291,456 bytes): the body as the function receives it (API Gateway base64-encodes
 * a binary body, such as a multipart upload, so it counts 4/3 of its size), the headers and the request
 * context. The body's share is MAX_REQUEST_BODY_BYTES, leaving 64 KiB for the rest; the local runtime holds
 * requests to the same limit. Larger files go through a presigned upload (`POST /ingestion/uploads`).
 */
import { PayloadTooLargeError } from './errors';

/** Lambda's limit on a synchronous invocation's request. */
export const LAMBDA_REQUEST_BYTES = 6 * 1024 * 1024;
/** The largest body, counted as the function receives it (base64 for binary bodies): 6,225,920 bytes. */
export const MAX_REQUEST_BODY_BYTES = LAMBDA_REQUEST_BYTES - 64 * 1024;
/** The largest binary body, before base64: 4,669,440 bytes. */
export const MAX_BINARY_BODY_BYTES = Math.floor(MAX_REQUEST_BODY_BYTES / 4) * 3;

/** The route that takes files of any size, and the one that takes them in the request body. */
export const PRESIGNED_UPLOAD_ROUTE = 'POST /ingestion/uploads';
export const DIRECT_UPLOAD_PATH = '/ingestion/upload';

/** A body's size as the function receives it. */
export function carriedBodyBytes(bytes: number, binary: boolean): number {
  return binary ? 4 * Math.ceil(bytes / 3) : bytes;
}

/** The 413 of a body over the limit; a direct upload is pointed at the presigned route. */
export function requestBodyTooLarge(path?: string): PayloadTooLargeError {
  const limit =
    `Request body exceeds the limit of a request through API Gateway to Lambda: ${MAX_REQUEST_BODY_BYTES} bytes ` +
    `as the function receives it, where a binary body counts base64-encoded (at most ${MAX_BINARY_BODY_BYTES} ` +
    'bytes of multipart upload)';
  if (path !== DIRECT_UPLOAD_PATH) return new PayloadTooLargeError(limit);
  return new PayloadTooLargeError(
    `${limit}. Upload larger files through ${PRESIGNED_UPLOAD_ROUTE}: it answers a presigned URL to PUT each file to, and the job starts when the file lands`,
  );
}
