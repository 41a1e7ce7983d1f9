/**
 * An OTLP/HTTP trace receiver on loopback: `POST /v1/traces` with an `ExportTraceServiceRequest` as JSON
 * (`application/json`, what `@opentelemetry/exporter-trace-otlp-http` sends) or protobuf
 * (`application/x-protobuf`), decoded into spans with their resource's attributes. Telemetry tests read
 * what a collector would have received from it.
 */
import { startServer, type TestServer } from './index';

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  /** OTLP's span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  /** The attributes of the span's resource (`service.name`, `openinference.project.name`, …). */
  resource: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** The content type of each export request received. */
  contentTypes: string[];
  server: TestServer;
  /** Waits until `predicate` holds for the spans received (rejects after `timeoutMs`). */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

// ---- JSON (the protobuf JSON mapping; ids are hex strings, 64-bit integers strings or numbers) ----

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
  kvlistValue?: { values?: JsonKeyValue[] };
  bytesValue?: string;
}
interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}

function jsonValue(value: JsonAnyValue | undefined): unknown {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(jsonValue);
  if (value.kvlistValue) return jsonAttributes(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return value.bytesValue;
  return null;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));
}

/** Decodes an `ExportTraceServiceRequest` in the JSON mapping. */
export function decodeJsonTraces(body: unknown): ReceivedSpan[] {
  const request = body as {
    resourceSpans?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind?: number;
          startTimeUnixNano: string | number;
          endTimeUnixNano: string | number;
          attributes?: JsonKeyValue[];
          status?: { code?: number; message?: string };
        }[];
      }[];
    }[];
  };
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          name: span.name,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          kind: span.kind ?? 0,
          startTimeUnixNano: BigInt(span.startTimeUnixNano),
          endTimeUnixNano: BigInt(span.endTimeUnixNano),
          attributes: jsonAttributes(span.attributes),
          resource,
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
        });
      }
    }
  }
  return spans;
}

// ---- protobuf (the wire format of opentelemetry-proto's trace service) ----

type Field = { number: number; wire: number; varint?: bigint; bytes?: Buffer; fixed?: Buffer };

function readVarint(buffer: Buffer, at: { offset: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (at.offset >= buffer.length) throw new Error('truncated varint');
    const byte = buffer[at.offset++]!;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7n;
  }
}

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  const at = { offset: 0 };
  while (at.offset < buffer.length) {
    const tag = Number(readVarint(buffer, at));
    const field: Field = { number: tag >>> 3, wire: tag & 7 };
    if (field.wire === 0) field.varint = readVarint(buffer, at);
    else if (field.wire === 1 || field.wire === 5) {
      const size = field.wire === 1 ? 8 : 4;
      field.fixed = buffer.subarray(at.offset, at.offset + size);
      at.offset += size;
    } else if (field.wire === 2) {
      const length = Number(readVarint(buffer, at));
      field.bytes = buffer.subarray(at.offset, at.offset + length);
      at.offset += length;
    } else throw new Error(`unsupported wire type ${field.wire}`);
    if (at.offset > buffer.length) throw new Error('truncated field');
    out.push(field);
  }
  return out;
}

const text = (field: Field) => field.bytes?.toString('utf8') ?? '';

function protoValue(buffer: Buffer): unknown {
  for (const field of fields(buffer)) {
    switch (field.number) {
      case 1:
        return text(field);
      case 2:
        return field.varint === 1n;
      case 3:
        return Number(BigInt.asIntN(64, field.varint ?? 0n));
      case 4:
        return field.fixed?.readDoubleLE(0) ?? 0;
      case 5:
        return fields(field.bytes ?? Buffer.alloc(0))
          .filter((item) => item.number === 1)
          .map((item) => protoValue(item.bytes ?? Buffer.alloc(0)));
      case 6:
        return protoAttributes(fields(field.bytes ?? Buffer.alloc(0)), 1);
      case 7:
        return (field.bytes ?? Buffer.alloc(0)).toString('hex');
    }
  }
  return null;
}

/** The `KeyValue` fields numbered `number` of a message, as an object. */
function protoAttributes(message: Field[], number: number): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const field of message.filter((item) => item.number === number)) {
    const kv = fields(field.bytes ?? Buffer.alloc(0));
    const key = kv.find((item) => item.number === 1);
    const value = kv.find((item) => item.number === 2);
    if (key) attributes[text(key)] = value?.bytes ? protoValue(value.bytes) : null;
  }
  return attributes;
}

const children = (message: Field[], number: number) =>
  message.filter((field) => field.number === number).map((field) => fields(field.bytes ?? Buffer.alloc(0)));

/** Decodes an `ExportTraceServiceRequest` in the protobuf wire format. */
export function decodeProtobufTraces(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of children(fields(body), 1)) {
    const resourceMessage = children(resourceSpans, 1)[0] ?? [];
    const resource = protoAttributes(resourceMessage, 1);
    for (const scopeSpans of children(resourceSpans, 2)) {
      for (const span of children(scopeSpans, 2)) {
        const one = (number: number) => span.find((field) => field.number === number);
        const status = children(span, 15)[0] ?? [];
        const statusMessage = status.find((field) => field.number === 2);
        spans.push({
          name: text(one(5) ?? { number: 5, wire: 2 }),
          traceId: one(1)?.bytes?.toString('hex') ?? '',
          spanId: one(2)?.bytes?.toString('hex') ?? '',
          parentSpanId: one(4)?.bytes?.toString('hex') ?? '',
          kind: Number(one(6)?.varint ?? 0n),
          startTimeUnixNano: one(7)?.fixed?.readBigUInt64LE(0) ?? 0n,
          endTimeUnixNano: one(8)?.fixed?.readBigUInt64LE(0) ?? 0n,
          attributes: protoAttributes(span, 9),
          resource,
          status: {
            code: Number(status.find((field) => field.number === 3)?.varint ?? 0n),
            message: statusMessage ? text(statusMessage) : '',
          },
        });
      }
    }
  }
  return spans;
}

/** Starts a receiver; every export is answered 200 with an empty `ExportTraceServiceResponse`. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = await startServer((seen) => {
    if (seen.method !== 'POST' || seen.url !== '/v1/traces') {
      return { status: 404, json: { error: `no route ${seen.method} ${seen.url}` } };
    }
    const contentType = String(seen.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    contentTypes.push(contentType);
    if (contentType === 'application/json') spans.push(...decodeJsonTraces(seen.body));
    else if (contentType === 'application/x-protobuf') spans.push(...decodeProtobufTraces(seen.raw));
    else return { status: 415, json: { error: `unsupported content type ${contentType}` } };
    return { status: 200, json: {} };
  });
  return {
    url: server.url,
    spans,
    contentTypes,
    server,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline) {
          throw new Error(
            `the receiver did not get the spans expected within ${timeoutMs} ms; it has: ${spans
              .map((span) => `${span.name} (${String(span.resource['openinference.project.name'])})`)
              .join(', ')}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return spans;
    },
    close: () => server.close(),
  };
}
