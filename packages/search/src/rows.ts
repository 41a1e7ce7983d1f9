/**
 * Builds Arrow tables of documents for a template's schema. Vector columns, and columns of strings, numbers,
 * booleans and lists of strings, are assembled from flat buffers (no per-element objects or builders), which
 * is what keeps feeding fast and its memory flat.
 */
import { createRequire } from 'node:module';
import type { Table as ArrowTable, DataType, Vector } from 'apache-arrow';
import { arrowSchema, arrowSchemaOf, arrowType } from './arrow';
import type { SchemaTemplate } from './templates';

const arrow = createRequire(import.meta.url)('apache-arrow') as typeof import('apache-arrow');

/** Per-token vectors of one document: `tokens` rows of `width` cells, row-major. */
export interface TokenMatrix {
  tokens: number;
  values: Float32Array | Uint8Array;
}

/** One row: scalar and list values by field name; multi-vector fields as token matrices. */
export type DocumentRow = Record<string, unknown> & { document_id: string };

function isTokenMatrix(value: unknown): value is TokenMatrix {
  return typeof value === 'object' && value !== null && 'tokens' in value && 'values' in value;
}

function tokenVectors(type: DataType, rows: (TokenMatrix | undefined)[]): Vector {
  const tokenType = (type as InstanceType<typeof arrow.List>).valueType as InstanceType<
    typeof arrow.FixedSizeList
  >;
  const width = tokenType.listSize;
  const cellType = tokenType.valueType;
  const offsets = new Int32Array(rows.length + 1);
  let total = 0;
  rows.forEach((row, i) => {
    total += row?.tokens ?? 0;
    offsets[i + 1] = total;
  });
  const values = arrow.DataType.isInt(cellType)
    ? new Uint8Array(total * width)
    : new Float32Array(total * width);
  rows.forEach((row, i) => {
    if (!row || row.tokens === 0) return;
    if (row.values.length !== row.tokens * width) {
      throw new Error(`token matrix has ${row.values.length} cells; expected ${row.tokens} × ${width}`);
    }
    values.set(row.values, offsets[i]! * width);
  });
  const cells = arrow.makeData({ type: cellType, length: values.length, data: values } as never);
  const tokens = arrow.makeData({ type: tokenType, length: total, child: cells } as never);
  return arrow.makeVector(
    arrow.makeData({ type, length: rows.length, valueOffsets: offsets, child: tokens } as never),
  );
}

function denseVectors(type: DataType, rows: (Float32Array | number[] | undefined)[]): Vector {
  const fixed = type as InstanceType<typeof arrow.FixedSizeList>;
  const width = fixed.listSize;
  const values = new Float32Array(rows.length * width);
  const nullBitmap = new Uint8Array(Math.ceil(rows.length / 8));
  let nullCount = 0;
  rows.forEach((row, i) => {
    if (!row) {
      nullCount++;
      return;
    }
    values.set(row, i * width);
    nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  const cells = arrow.makeData({ type: fixed.valueType, length: values.length, data: values } as never);
  return arrow.makeVector(
    arrow.makeData({ type, length: rows.length, nullCount, nullBitmap, child: cells } as never),
  );
}

/** A validity bitmap for `values` (a set bit per present value), and how many are absent. */
function validity(values: unknown[]): { nullCount: number; nullBitmap?: Uint8Array } {
  let nullCount = 0;
  for (const value of values) if (value === null || value === undefined) nullCount++;
  if (nullCount === 0) return { nullCount };
  const nullBitmap = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((value, i) => {
    if (value !== null && value !== undefined) nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  return { nullCount, nullBitmap };
}

const absent = (value: unknown) => value === null || value === undefined;

/** Strings as Arrow Utf8 data: one buffer and its offsets (apache-arrow's builder copies value by value). */
function utf8Data(type: DataType, values: (string | null | undefined)[]) {
  const valueOffsets = new Int32Array(values.length + 1);
  let bytes = 0;
  values.forEach((value, i) => {
    if (value) bytes += Buffer.byteLength(value);
    valueOffsets[i + 1] = bytes;
  });
  const data = Buffer.allocUnsafe(bytes);
  values.forEach((value, i) => {
    if (value) data.write(value, valueOffsets[i]!);
  });
  return arrow.makeData({ type, length: values.length, ...validity(values), valueOffsets, data } as never);
}

/** Columns of strings, numbers, booleans and lists of strings, built from flat buffers; undefined otherwise. */
function flatColumn(type: DataType, values: unknown[]): Vector | undefined {
  const { DataType: Type } = arrow;
  const all = (check: (value: unknown) => boolean) => values.every((value) => absent(value) || check(value));
  const isString = (value: unknown) => typeof value === 'string';
  if (Type.isUtf8(type) && all(isString)) return arrow.makeVector(utf8Data(type, values as string[]));
  const numbers = (Typed: Int32ArrayConstructor | Float32ArrayConstructor | Float64ArrayConstructor) => {
    if (!all((value) => typeof value === 'number')) return undefined;
    const data = new Typed(values.length);
    values.forEach((value, i) => {
      if (!absent(value)) data[i] = value as number;
    });
    return arrow.makeVector(
      arrow.makeData({ type, length: values.length, ...validity(values), data } as never),
    );
  };
  if (Type.isInt(type) && (type as InstanceType<typeof arrow.Int32>).bitWidth === 32)
    return numbers(Int32Array);
  if (Type.isFloat(type)) {
    const precision = (type as InstanceType<typeof arrow.Float32>).precision;
    if (precision === arrow.Precision.SINGLE) return numbers(Float32Array);
    if (precision === arrow.Precision.DOUBLE) return numbers(Float64Array);
    return undefined;
  }
  if (Type.isBool(type) && all((value) => typeof value === 'boolean')) {
    const data = new Uint8Array(Math.ceil(values.length / 8));
    values.forEach((value, i) => {
      if (value === true) data[i >> 3]! |= 1 << (i & 7);
    });
    return arrow.makeVector(
      arrow.makeData({ type, length: values.length, ...validity(values), data } as never),
    );
  }
  const element = Type.isList(type) ? (type as InstanceType<typeof arrow.List>).valueType : undefined;
  if (element && Type.isUtf8(element)) {
    if (!all((value) => Array.isArray(value) && value.every(isString))) return undefined;
    const valueOffsets = new Int32Array(values.length + 1);
    const strings: string[] = [];
    values.forEach((value, i) => {
      if (!absent(value)) for (const text of value as string[]) strings.push(text);
      valueOffsets[i + 1] = strings.length;
    });
    const child = utf8Data(element, strings);
    return arrow.makeVector(
      arrow.makeData({ type, length: values.length, ...validity(values), valueOffsets, child } as never),
    );
  }
  return undefined;
}

function column(name: string, type: DataType, rows: DocumentRow[]): Vector {
  const values = rows.map((row) => row[name]);
  if (
    arrow.DataType.isList(type) &&
    arrow.DataType.isFixedSizeList((type as InstanceType<typeof arrow.List>).valueType)
  ) {
    return tokenVectors(
      type,
      values.map((v) => (isTokenMatrix(v) ? v : undefined)),
    );
  }
  if (arrow.DataType.isFixedSizeList(type)) return denseVectors(type, values as (Float32Array | undefined)[]);
  if (arrow.DataType.isInt(type) && (type as InstanceType<typeof arrow.Int64>).bitWidth === 64) {
    return arrow.vectorFromArray(
      values.map((v) => (v === undefined || v === null ? null : BigInt(Math.trunc(Number(v))))),
      type,
    );
  }
  return (
    flatColumn(type, values) ??
    arrow.vectorFromArray(
      values.map((v) => (v === undefined ? null : v)),
      type,
    )
  );
}

/**
 * An Arrow table with every field of the template (or only the named ones), in its order; absent values are
 * null.
 */
export function documentTable(template: SchemaTemplate, rows: DocumentRow[], only?: string[]): ArrowTable {
  const fields = only
    ? template.document.fields.filter((field) => only.includes(field.name))
    : template.document.fields;
  const schema = only ? arrowSchemaOf(fields) : arrowSchema(template);
  const children = fields.map((field) => {
    const vector = column(field.name, arrowType(field.type), rows);
    if (vector.data.length !== 1)
      throw new Error(`column ${field.name} was built in ${vector.data.length} chunks`);
    return vector.data[0]!;
  });
  const struct = arrow.makeData({
    type: new arrow.Struct(schema.fields),
    length: rows.length,
    children,
  } as never);
  return new arrow.Table([new arrow.RecordBatch(schema, struct as never)]) as ArrowTable;
}
