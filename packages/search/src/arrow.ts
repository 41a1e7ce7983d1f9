/** Maps template field types to Arrow types for LanceDB tables. */
import { createRequire } from 'node:module';
import type { DataType, Schema } from 'apache-arrow';
import type { SchemaTemplate } from './templates';

// LanceDB loads apache-arrow through require(); classes from the ESM build would fail its instanceof checks.
const arrow = createRequire(import.meta.url)('apache-arrow') as typeof import('apache-arrow');
const { Bool, Field, FixedSizeList, Float32, Float64, Int32, Int64, List, Uint8, Utf8 } = arrow;

const scalars: Record<string, () => DataType> = {
  string: () => new Utf8(),
  int: () => new Int32(),
  long: () => new Int64(),
  float: () => new Float32(),
  double: () => new Float64(),
  bool: () => new Bool(),
};

// bfloat16 and float cells are stored as float32; int8 cells hold packed sign bits and are stored as uint8.
const cellType = (cell: string): DataType => (cell === 'int8' ? new Uint8() : new Float32());

const DENSE = /^tensor<(float|bfloat16|int8)>\(x\[(\d+)\]\)$/;
const MULTI = /^tensor<(float|bfloat16|int8)>\(token\{\},\s*v\[(\d+)\]\)$/;
const ARRAY = /^array<(\w+)>$/;

export function arrowType(type: string): DataType {
  const scalar = scalars[type];
  if (scalar) return scalar();
  const array = ARRAY.exec(type);
  const element = array?.[1] ? scalars[array[1]] : undefined;
  if (element) return new List(new Field('item', element(), true));
  const dense = DENSE.exec(type);
  if (dense) return new FixedSizeList(Number(dense[2]), new Field('item', cellType(dense[1]!), true));
  const multi = MULTI.exec(type);
  if (multi) {
    const token = new FixedSizeList(Number(multi[2]), new Field('item', cellType(multi[1]!), true));
    return new List(new Field('item', token, true));
  }
  throw new Error(`Unsupported field type '${type}'`);
}

/** Every field is nullable but `document_id`, the key upserts match on. */
export function arrowSchema(template: SchemaTemplate): Schema {
  return arrowSchemaOf(template.document.fields);
}

export function arrowSchemaOf(fields: SchemaTemplate['document']['fields']): Schema {
  return new arrow.Schema(
    fields.map((field) => new Field(field.name, arrowType(field.type), field.name !== 'document_id')),
  );
}
