/** The multipart/form-data body parser of the HTTP stack: a form's text fields and its files. */
import {
  BadRequestError,
  type HttpError,
  MAX_REQUEST_BODY_BYTES,
  PayloadTooLargeError,
  requestBodyTooLarge,
  UnsupportedMediaTypeError,
  ValidationError,
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

/** What one form may hold; a form over any of them is refused whole (413), never cut short. */
export const FORM_LIMITS = {
  fields: 50,
  fieldBytes: 1024 * 1024,
  /** Longest field or file-field name, in bytes. */
  nameBytes: 200,
  files: 1000,
} as const;

const malformed = (error: Error) => new BadRequestError(`Malformed multipart body: ${error.message}`);

/**
 * Parses the form; a file over `maxFileBytes` answers 413. Every stream has its error handled: a body cut
 * inside or after a part fails the request (400), never the process.
 */
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
    let settled = false;
    const fail = (error: HttpError) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: {
          fileSize: maxFileBytes,
          fields: FORM_LIMITS.fields,
          fieldSize: FORM_LIMITS.fieldBytes,
          fieldNameSize: FORM_LIMITS.nameBytes,
          files: FORM_LIMITS.files,
        },
        defParamCharset: 'utf8',
        // Relative paths name sources (`tessera index`); cleanName keeps them inside the job.
        preservePath: true,
      });
    } catch (error) {
      fail(malformed(error as Error));
      return;
    }
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) {
        return fail(
          new PayloadTooLargeError(
            `Form field '${name}' is over the limit of ${info.nameTruncated ? `${FORM_LIMITS.nameBytes} bytes a name` : `${FORM_LIMITS.fieldBytes} bytes a value`}`,
          ),
        );
      }
      // The same field twice would leave which one counts to chance: refused, as a look-alike would be.
      if (Object.hasOwn(form.fields, name)) {
        return fail(
          new ValidationError([
            { type: 'value_error', loc: ['body', name], msg: 'Field given more than once', input: value },
          ]),
        );
      }
      Object.defineProperty(form.fields, name, { value, enumerable: true, writable: true });
    });
    parser.on('fieldsLimit', () =>
      fail(new PayloadTooLargeError(`The form has more than ${FORM_LIMITS.fields} fields`)),
    );
    parser.on('filesLimit', () =>
      fail(new PayloadTooLargeError(`The form has more than ${FORM_LIMITS.files} files`)),
    );
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('error', (error: Error) => fail(malformed(error)));
      stream.on('data', (chunk: Buffer) => {
        if (!settled) chunks.push(chunk);
      });
      stream.on('limit', () =>
        fail(
          new PayloadTooLargeError(
            `File '${info.filename}' is over the upload limit of ${maxFileBytes} bytes`,
          ),
        ),
      );
      stream.on('end', () => {
        if (!settled) form.files.push({ field, name: info.filename ?? '', bytes: Buffer.concat(chunks) });
      });
    });
    parser.on('error', (error: Error) => fail(malformed(error)));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      resolve(form);
    });
    parser.end(body);
  });
}
