/** The multipart/form-data body parser of the HTTP stack: a form's text fields and its files. */
import {
  BadRequestError,
  MAX_REQUEST_BODY_BYTES,
  PayloadTooLargeError,
  requestBodyTooLarge,
  UnsupportedMediaTypeError,
} from '@tessera/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import busboy from 'busboy';

/** One file part: the form field it came in, its file name as sent (a relative path is kept) and its bytes. */
export interface FormFile {
  field: string;
  name: string;
  bytes: Buffer;
}

export interface MultipartForm {
  fields: Record<string, string>;
  files: FormFile[];
}

/** Parses the form; a file over `maxFileBytes` answers 413 before the rest is read. */
export function parseMultipart(event: APIGatewayProxyEventV2, maxFileBytes: number): Promise<MultipartForm> {
  const contentType = event.headers?.['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) {
    throw new UnsupportedMediaTypeError(
      `Unsupported content type '${contentType.split(';')[0] || '(none)'}': send the file as multipart/form-data with a 'file' field`,
    );
  }
  // Between this limit and Lambda's own (it leaves room for the rest of the event) a request still reaches
  // the function in AWS: it answers the 413 the local runtime answers before calling it.
  if (Buffer.byteLength(event.body ?? '') > MAX_REQUEST_BODY_BYTES) throw requestBodyTooLarge(event.rawPath);
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  return new Promise((resolve, reject) => {
    const form: MultipartForm = { fields: {}, files: [] };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { fileSize: maxFileBytes, fields: 50, fieldSize: 1024 * 1024, files: 1000 },
        defParamCharset: 'utf8',
        // Relative paths name sources (`tessera index`); cleanName keeps them inside the job.
        preservePath: true,
      });
    } catch (error) {
      reject(new BadRequestError(`Malformed multipart body: ${(error as Error).message}`));
      return;
    }
    parser.on('field', (name, value) => {
      form.fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        reject(
          new PayloadTooLargeError(
            `File '${info.filename}' is over the upload limit of ${maxFileBytes} bytes`,
          ),
        ),
      );
      stream.on('end', () =>
        form.files.push({ field, name: info.filename ?? '', bytes: Buffer.concat(chunks) }),
      );
    });
    parser.on('error', (error: Error) =>
      reject(new BadRequestError(`Malformed multipart body: ${error.message}`)),
    );
    parser.on('close', () => resolve(form));
    parser.end(body);
  });
}
