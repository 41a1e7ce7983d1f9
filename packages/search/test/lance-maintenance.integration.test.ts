import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  LanceContentIndex,
  LanceMaintenance,
  LanceSearchBackend,
  lanceConnection,
  maintenanceDue,
  packSignBits,
  SchemaCatalog,
} from '../src/index';

const template = new SchemaCatalog(path.resolve(import.meta.dirname, '../../../configs/schemas')).get(
  'document_text',
)!;
const schema = 'document_text_upkeep_test';
const values = Float32Array.from({ length: 128 }, (_, i) => (i % 5) - 2);
const rows = (prefix: string, from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    document_id: `${prefix}${from + i}`,
    source_doc_id: `${prefix}${from + i}`,
    text: `document ${prefix}${from + i} of this process`,
    embedding: { tokens: 1, values },
    embedding_binary: { tokens: 1, values: packSignBits(values) },
  }));

async function fresh() {
  const dir = mkdtempSync(path.join(tmpdir(), 'upkeep-'));
  await new LanceSearchBackend(lanceConnection(dir)).deploySchema(schema, template);
  const index = new LanceContentIndex(lanceConnection(dir));
  await index.ensureIndexes(schema, template);
  return { dir, index };
}

const policy = { maxFragments: 6, growthShare: 0.25, retainMs: 0, attempts: 6, scalarUnindexed: 30 };

describe('LanceMaintenance', () => {
  it('is due once the rows outside the largest fragment grow past their share, then compacts and removes old versions; B-trees that fall behind are rebuilt before', async () => {
    const { dir, index } = await fresh();
    const upkeep = new LanceMaintenance(lanceConnection(dir), policy);
    await index.upsert(schema, template, rows('a', 0, 400));
    await upkeep.run(schema, true);
    await index.upsert(schema, template, rows('a', 400, 20));
    await index.upsert(schema, template, rows('a', 420, 20));
    const table = (await index.table(schema))!;
    // 40 rows beside 400: not yet a quarter.
    expect((await maintenanceDue(table, policy)).due).toBe(false);
    // Not due, but the B-trees left 40 rows out: they are rebuilt on their own.
    const light = await upkeep.run(schema);
    expect(light).toMatchObject({ optimized: false, rebuilt: ['document_id', 'source_doc_id'] });
    const reindexed = (await index.table(schema))!;
    expect((await reindexed.indexStats('document_id_idx'))!.numUnindexedRows).toBe(0);
    for (let n = 0; n < 4; n++) await index.upsert(schema, template, rows('a', 440 + n * 20, 20));
    const before = (await table.listVersions()).length;
    const outcome = await upkeep.run(schema);
    expect(outcome).toMatchObject({ optimized: true });
    expect(outcome.fragmentsAfter!).toBeLessThan(outcome.fragmentsBefore);
    expect(outcome.versionsRemoved!).toBeGreaterThan(0);
    const latest = (await index.table(schema))!;
    expect((await latest.listVersions()).length).toBeLessThan(before);
    expect(await index.count(schema)).toBe(520);
  });

  it('compacts while another process writes and compacts the same table, losing and duplicating nothing', async () => {
    const { dir, index } = await fresh();
    // Versions are kept a minute: removing them at once deletes files a compaction running in the other
    // process still reads (it then fails, and is tried again later), which the retention is there to avoid.
    const upkeep = new LanceMaintenance(lanceConnection(dir), { ...policy, retainMs: 60_000 });
    const other = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(import.meta.dirname, 'support/concurrent-writer.ts'),
        dir,
        schema,
        'b',
        '30',
        '25',
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const exited = new Promise<number | null>((resolve) => other.once('exit', resolve));
    let compactions = 0;
    for (let c = 0; c < 30; c++) {
      const batch = rows('a', c * 25, 25);
      await index.replaceSources(
        schema,
        template,
        batch.map((row) => row.source_doc_id),
        batch,
      );
      if (c % 5 === 4 && (await upkeep.run(schema)).optimized) compactions++;
    }
    expect(await exited).toBe(0);
    await upkeep.run(schema, true);
    expect(compactions).toBeGreaterThan(0);
    expect(await index.count(schema)).toBe(1500);
    const ids = (await (await index.table(schema))!.query().select(['document_id']).toArray()).map(
      (row) => row.document_id as string,
    );
    expect(new Set(ids).size).toBe(1500);
    const snapshot = await index.snapshot(schema, ['text']);
    expect(snapshot!.liveCount).toBe(1500);
    expect((await index.bm25(schema, ['text'], 'elsewhere', 2000)).length).toBe(750);
  }, 120_000);
});
