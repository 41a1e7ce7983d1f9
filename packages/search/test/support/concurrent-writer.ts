/**
 * Another process writing to a table, for the maintenance tests: `count` commits of `rows` documents
 * (`<prefix><n>`, one source each), each followed by the upkeep the writes call for, then it waits for
 * that upkeep and exits. Arguments: the database directory, the table, the prefix, count, rows.
 */
import path from 'node:path';
import {
  LanceContentIndex,
  lanceConnection,
  lanceMaintenance,
  packSignBits,
  SchemaCatalog,
} from '../../src/index';

const [dir, schema, prefix, count, rows] = process.argv.slice(2) as [string, string, string, string, string];
const template = new SchemaCatalog(path.resolve(import.meta.dirname, '../../../../configs/schemas')).get(
  'document_text',
)!;
const index = new LanceContentIndex(lanceConnection(dir));
const values = Float32Array.from({ length: 128 }, (_, i) => (i % 7) - 3);
for (let c = 0; c < Number(count); c++) {
  const batch = Array.from({ length: Number(rows) }, (_, i) => {
    const id = `${prefix}${c * Number(rows) + i}`;
    return {
      document_id: id,
      source_doc_id: id,
      text: `document ${id} written elsewhere`,
      embedding: { tokens: 1, values },
      embedding_binary: { tokens: 1, values: packSignBits(values) },
    };
  });
  await index.replaceSources(
    schema,
    template,
    batch.map((row) => row.source_doc_id),
    batch,
  );
  await index.maintain(schema);
}
await lanceMaintenance(index.db).idle();
process.exit(0);
