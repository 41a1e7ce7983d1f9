import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileCatalog, SchemaCatalog } from '../src/index';

const configs = path.resolve(import.meta.dirname, '../../../configs');
const schemas = new SchemaCatalog(path.join(configs, 'schemas'));

describe('ProfileCatalog', () => {
  const catalog = new ProfileCatalog(path.join(configs, 'profiles'), schemas);

  it('ships a profile for documents, code, video, images and audio', () => {
    expect(
      catalog
        .list()
        .map((p) => p.type)
        .sort(),
    ).toEqual(['audio', 'code', 'document', 'image', 'video']);
    const documents = catalog.get('document_text_semantic')!;
    expect(documents).toMatchObject({
      schema_name: 'document_text',
      embedding_type: 'multi_vector',
      model_loader: 'colbert',
    });
    expect(documents.ranking_strategies).toHaveLength(9);
  });

  it('routes file extensions to profiles per the extension table', () => {
    expect(catalog.forExtension('.md')?.profile_name).toBe('document_text_semantic');
    expect(catalog.forExtension('.PDF')?.profile_name).toBe('document_text_semantic');
    expect(catalog.forExtension('.go')?.profile_name).toBe('code_lateon_mv');
    expect(catalog.forExtension('.mp4')?.type).toBe('video');
    expect(catalog.forExtension('.png')?.type).toBe('image');
    expect(catalog.forExtension('.flac')?.type).toBe('audio');
    expect(catalog.forExtension('.exe')).toBeUndefined();
  });

  it('refuses a profile whose text fields are not full-text fields of its schema', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'profiles-'));
    const broken = {
      ...catalog.get('document_text_semantic')!,
      profile_name: 'broken',
      text_fields: ['source_doc_id'],
    };
    writeFileSync(path.join(dir, 'broken.json'), JSON.stringify(broken));
    expect(() => new ProfileCatalog(dir, schemas)).toThrow(
      /text_fields source_doc_id are not full-text fields/,
    );
  });

  it('refuses an unknown default strategy', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'profiles-'));
    writeFileSync(
      path.join(dir, 'x.json'),
      JSON.stringify({ ...catalog.get('code_lateon_mv')!, default_ranking_strategy: 'magic' }),
    );
    expect(() => new ProfileCatalog(dir, schemas)).toThrow(/default_ranking_strategy/);
  });
});
