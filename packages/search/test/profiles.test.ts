import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileCatalog, SchemaCatalog, TenantProfiles, unknownStrategyClasses } from '../src/index';

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

describe('ProfileCatalog files and strategy classes', () => {
  const catalog = new ProfileCatalog(path.join(configs, 'profiles'), schemas);

  it('keeps each shipped file as written, for templates', () => {
    const file = catalog.file('code_lateon_mv')!;
    expect(file).not.toHaveProperty('inference_services');
    expect(file.extensions).toEqual(catalog.get('code_lateon_mv')!.extensions);
    file.profile_name = 'changed';
    expect(catalog.file('code_lateon_mv')!.profile_name).toBe('code_lateon_mv');
    expect(catalog.extensionsOfType('document')).toEqual(['.md', '.txt', '.rst', '.html', '.htm', '.pdf']);
  });

  it('refuses a shipped profile naming a strategy class the pipeline does not implement', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'profiles-'));
    writeFileSync(
      path.join(dir, 'x.json'),
      JSON.stringify({ ...catalog.file('code_lateon_mv'), strategies: { segmentation: { class: 'Magic' } } }),
    );
    expect(() => new ProfileCatalog(dir, schemas)).toThrow(/strategy classes Magic are not implemented/);
    expect(unknownStrategyClasses({ a: { class: 'ParagraphChunker' }, b: { class: 'Nope' } })).toEqual([
      'Nope',
    ]);
  });
});

describe('TenantProfiles', () => {
  const catalog = new ProfileCatalog(path.join(configs, 'profiles'), schemas);
  const own = (name: string, extensions: string[]) => ({
    ...catalog.get('document_text_semantic')!,
    profile_name: name,
    extensions,
  });

  it("answers the tenant's own profiles first, and shipped ones it did not replace", () => {
    const view = new TenantProfiles(
      [
        own('zeta', ['.md']),
        own('alpha', ['.md', '.txt']),
        { ...own('code_lateon_mv', []), description: 'ours' },
      ],
      catalog,
    );
    expect(view.list().map((p) => p.profile_name)).toEqual([
      'alpha',
      'code_lateon_mv',
      'zeta',
      'audio_semantic',
      'document_text_semantic',
      'image_colpali_mv',
      'video_colpali_smol500_mv_frame',
    ]);
    expect(view.get('code_lateon_mv')?.description).toBe('ours');
    expect(view.forExtension('.MD')?.profile_name).toBe('alpha');
    expect(view.forExtension('.pdf')?.profile_name).toBe('document_text_semantic');
    // The replaced shipped profile takes no extension any more.
    expect(view.forExtension('.go')).toBeUndefined();
    expect(view.isOwn('alpha')).toBe(true);
    expect(view.isOwn('document_text_semantic')).toBe(false);
  });
});
