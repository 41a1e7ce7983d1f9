import { Profiles } from '@tessera/api';
import { KeyedSerializer } from '@tessera/core';
import { createTenant } from '@tessera/tenancy';
import { refusal, storedProfile } from '@tessera/testing/contracts';
import { type FakeDomains, fakeDomains, profileCatalog } from '@tessera/testing/fakes';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createProfile,
  deleteProfile,
  deployProfile,
  getProfile,
  listProfiles,
  type ProfilesDeps,
  ProfileViews,
  profileTemplates,
  profileVersions,
  purgeTenantProfiles,
  tenantProfiles,
  updateProfile,
} from '../src/index';

let h: FakeDomains;
let deps: ProfilesDeps;
beforeEach(async () => {
  h = fakeDomains();
  deps = h.profiles;
  for (const tenant of ['acme:prod', 'rival:prod']) {
    await createTenant(h.tenancy, { tenant_id: tenant, created_by: 'seed', base_schemas: ['video_frames'] });
  }
});

/** A create request as the route parses it (defaults applied). */
const request = (fields: Record<string, unknown> = {}) =>
  Profiles.CreateProfileRequest.parse({
    profile_name: 'team_docs',
    tenant_id: 'acme:prod',
    type: 'document',
    schema_name: 'document_text',
    embedding_model: 'lightonai/GTE-ModernColBERT-v1',
    embedding_type: 'multi_vector',
    model_loader: 'colbert',
    strategies: { segmentation: { class: 'ParagraphChunker', params: { max_chars: 1200 } } },
    extra_config: { extensions: ['.md'] },
    ...fields,
  });

const update = (fields: Record<string, unknown>) =>
  Profiles.UpdateProfileRequest.parse({ tenant_id: 'acme:prod', ...fields });

/** The business-rule errors a create fails with. */
async function ruleErrors(fields: Record<string, unknown>): Promise<string[]> {
  const { status, detail } = await refusal(createProfile(deps, request(fields)));
  expect(status).toBe(400);
  expect((detail as { message: string }).message).toBe('Profile validation failed');
  return (detail as { errors: string[] }).errors;
}

describe('createProfile', () => {
  it('stores version 1 and answers it, its schema not deployed unless asked', async () => {
    h.clock.offset = 5000;
    const created = await createProfile(deps, request());
    expect(created).toEqual({
      profile_name: 'team_docs',
      tenant_id: 'acme:prod',
      schema_deployed: false,
      tenant_schema_name: null,
      schema_deploy_error: null,
      created_at: created.created_at,
      version: 1,
    });
    expect(created.created_at).toBeGreaterThan(Date.now());
    const withDeploy = await createProfile(deps, request({ profile_name: 'deployed', deploy_schema: true }));
    expect(withDeploy).toMatchObject({
      schema_deployed: true,
      tenant_schema_name: 'document_text_acme_prod',
    });
    expect(await h.backend.listSchemas()).toContain('document_text_acme_prod');
  });

  it('answers 201 with schema_deploy_error when the deploy fails after the profile is stored', async () => {
    h.backend.deploySchema = async () => {
      throw new Error('disk full');
    };
    const created = await createProfile(deps, request({ deploy_schema: true }));
    expect(created).toMatchObject({
      version: 1,
      schema_deployed: false,
      tenant_schema_name: null,
      schema_deploy_error: "Schema 'document_text_acme_prod' could not be deployed: disk full",
    });
    expect((await getProfile(deps, 'team_docs', 'acme:prod')).version).toBe(1);
  });

  it('lists every broken rule at once, in the words of the clarifications', async () => {
    const errors = await ruleErrors({
      profile_name: 'bad name!',
      type: 'hologram',
      schema_name: 'nope',
      embedding_model: 'a/b/c',
      embedding_type: 'dense',
      model_loader: 'clip',
      process_type: 'teleport',
      strategies: { segmentation: { class: 'MagicChunker' }, embedding: 'x' },
      schema_config: { embedding_dim: 0 },
      extra_config: { schema_name: 'x', version: 3, inference_services: {} },
    });
    expect(errors).toEqual([
      "Invalid profile_name 'bad name!': use at most 100 letters, digits, underscores or hyphens",
      "Invalid type 'hologram': expected one of video, image, audio, document, code, wiki",
      "Schema template 'nope_schema.json' not found",
      "Invalid embedding_model 'a/b/c': expected 'org/model' or 'model-name'",
      "Invalid embedding_type 'dense': expected 'multi_vector' or 'single_vector'",
      "Invalid model_loader 'clip': expected one of colbert, colpali, colqwen, xclip",
      "Invalid process_type 'teleport': expected one of direct_video, frame_based, video_chunks",
      "Unknown strategy class 'MagicChunker'",
      "Invalid strategy 'embedding': expected an object with a 'class' name and an optional 'params' object",
      'schema_config.embedding_dim must be an integer from 1 to 100000',
      "extra_config key 'schema_name' names a profile field",
      "extra_config key 'version' names a profile field",
    ]);
    expect(await h.profiles.store.list('acme:prod')).toEqual([]);
  });

  it('takes names up to 100 characters', async () => {
    expect((await createProfile(deps, request({ profile_name: 'a'.repeat(100) }))).version).toBe(1);
    expect(await ruleErrors({ profile_name: 'b'.repeat(101) })).toEqual([
      `Invalid profile_name '${'b'.repeat(101)}': use at most 100 letters, digits, underscores or hyphens`,
    ]);
    expect(await ruleErrors({ profile_name: '' })).toEqual([
      "Invalid profile_name '': use at most 100 letters, digits, underscores or hyphens",
    ]);
  });

  it('takes embedding_dim from 1 to 100000, integers only', async () => {
    for (const [name, dim] of [
      ['one', 1],
      ['max', 100_000],
    ] as const) {
      expect(
        (await createProfile(deps, request({ profile_name: name, schema_config: { embedding_dim: dim } })))
          .version,
      ).toBe(1);
    }
    for (const dim of [0, 100_001, 1.5, -3, '128', null]) {
      expect(await ruleErrors({ schema_config: { embedding_dim: dim } }), String(dim)).toEqual([
        'schema_config.embedding_dim must be an integer from 1 to 100000',
      ]);
    }
  });

  it('needs a model_loader for every type whose shipped profiles name one, not for wiki', async () => {
    expect(await ruleErrors({ model_loader: null })).toEqual([
      "model_loader is required for profiles of type 'document'",
    ]);
    const wiki = await createProfile(
      deps,
      request({
        profile_name: 'notes',
        type: 'wiki',
        schema_name: 'wiki',
        model_loader: null,
        strategies: {},
        extra_config: {},
      }),
    );
    expect(wiki.version).toBe(1);
  });

  it('refuses a duplicate name within a tenant, not across tenants', async () => {
    await createProfile(deps, request());
    expect(await ruleErrors({})).toEqual(["Profile 'team_docs' already exists for tenant 'acme:prod'"]);
    expect((await createProfile(deps, request({ tenant_id: 'rival:prod' }))).tenant_id).toBe('rival:prod');
  });

  it('checks the extra_config keys search and ingestion read', async () => {
    expect(
      await ruleErrors({ extra_config: { ranking_strategies: ['bm25_only'], extensions: ['md'] } }),
    ).toEqual([expect.stringMatching(/^extra_config\.extensions\.0: /)]);
    expect(
      await ruleErrors({
        extra_config: { ranking_strategies: ['bm25_only'], default_ranking_strategy: 'phased' },
      }),
    ).toEqual([
      'extra_config.default_ranking_strategy: default_ranking_strategy must be one of ranking_strategies',
    ]);
    expect(await ruleErrors({ extra_config: { text_fields: ['source_doc_id'] } })).toEqual([
      "extra_config.text_fields: 'source_doc_id' is not a full-text field of schema 'document_text'",
    ]);
  });

  it('guards the tenant', async () => {
    expect((await refusal(createProfile(deps, request({ tenant_id: 'ghost' })))).status).toBe(404);
    expect((await refusal(createProfile(deps, request({ tenant_id: 'a:b:c' })))).status).toBe(400);
  });
});

describe('profileTemplates', () => {
  it('lists the shipped profiles as templates with the four choice lists and the strategy classes', async () => {
    const answer = await profileTemplates(deps, 'acme:prod');
    expect(answer.tenant_id).toBe('acme:prod');
    expect(answer.profile_types).toEqual(['video', 'image', 'audio', 'document', 'code', 'wiki']);
    expect(answer.embedding_types).toEqual(['multi_vector', 'single_vector']);
    expect(answer.model_loaders).toEqual(['colbert', 'colpali', 'colqwen', 'xclip']);
    expect(answer.process_types).toEqual(['direct_video', 'frame_based', 'video_chunks']);
    expect(answer.strategy_classes).toContain('ParagraphChunker');
    expect(answer.templates.map((t) => t.profile_name).sort()).toEqual(
      profileCatalog
        .list()
        .map((p) => p.profile_name)
        .sort(),
    );
    const documents = answer.templates.find((t) => t.profile_name === 'document_text_semantic')!;
    expect(documents.config).toEqual(profileCatalog.file('document_text_semantic'));
    expect(documents.config).not.toHaveProperty('inference_services');
  });

  it('turns into a create request that passes, and leaves out names the tenant took', async () => {
    const { templates } = await profileTemplates(deps, 'acme:prod');
    const fields = new Set(Object.keys(Profiles.CreateProfileRequest.shape));
    for (const template of templates) {
      const named = Object.fromEntries(Object.entries(template.config).filter(([key]) => fields.has(key)));
      const extra = Object.fromEntries(Object.entries(template.config).filter(([key]) => !fields.has(key)));
      const created = await createProfile(
        deps,
        Profiles.CreateProfileRequest.parse({ ...named, extra_config: extra, tenant_id: 'acme:prod' }),
      );
      expect(created.version, template.profile_name).toBe(1);
    }
    expect((await profileTemplates(deps, 'acme:prod')).templates).toEqual([]);
    expect((await profileTemplates(deps, 'rival:prod')).templates).toHaveLength(templates.length);
  });

  it('answers 500 profile_templates_failed when the profile store cannot be read', async () => {
    h.profiles.store.list = async () => {
      throw new Error('throttled');
    };
    expect(await refusal(profileTemplates(deps, 'acme:prod'))).toEqual({
      status: 500,
      detail: {
        error: 'profile_templates_failed',
        message: "The profile store could not be read for tenant 'acme:prod'; retry.",
      },
    });
  });
});

describe('listProfiles and getProfile', () => {
  it("lists the tenant's own profiles with the list request's time, and nothing of another tenant", async () => {
    await createProfile(deps, request());
    await createProfile(
      deps,
      request({
        profile_name: 'b_code',
        type: 'code',
        schema_name: 'code',
        deploy_schema: true,
        extra_config: {},
      }),
    );
    h.clock.offset = 60_000;
    const before = Date.now() + 60_000;
    const answer = await listProfiles(deps, 'acme:prod');
    expect(answer.total_count).toBe(2);
    expect(answer.tenant_id).toBe('acme:prod');
    expect(answer.profiles.map((p) => [p.profile_name, p.schema_deployed])).toEqual([
      ['b_code', true],
      ['team_docs', false],
    ]);
    expect(new Set(answer.profiles.map((p) => p.created_at)).size).toBe(1);
    expect(answer.profiles[0]!.created_at).toBeGreaterThanOrEqual(before);
    expect(await listProfiles(deps, 'rival:prod')).toEqual({
      profiles: [],
      total_count: 0,
      tenant_id: 'rival:prod',
    });
  });

  it('gets every create field with the stored ones; 404 for an unknown name or another tenant’s', async () => {
    await createProfile(
      deps,
      request({ description: 'Docs of the team', model_specific: { pooling: 'mean' } }),
    );
    const profile = await getProfile(deps, 'team_docs', 'acme:prod');
    expect(profile).toEqual({
      profile_name: 'team_docs',
      tenant_id: 'acme:prod',
      type: 'document',
      schema_name: 'document_text',
      embedding_model: 'lightonai/GTE-ModernColBERT-v1',
      embedding_type: 'multi_vector',
      description: 'Docs of the team',
      strategies: { segmentation: { class: 'ParagraphChunker', params: { max_chars: 1200 } } },
      pipeline_config: {},
      model_specific: { pooling: 'mean' },
      schema_config: {},
      model_loader: 'colbert',
      process_type: null,
      extra_config: { extensions: ['.md'] },
      schema_deployed: false,
      tenant_schema_name: null,
      created_at: profile.created_at,
      updated_at: profile.created_at,
      version: 1,
    });
    expect(Profiles.ProfileDetail.parse(profile)).toEqual(profile);
    expect(await refusal(getProfile(deps, 'nope', 'acme:prod'))).toEqual({
      status: 404,
      detail: "Profile 'nope' not found for tenant 'acme:prod'",
    });
    expect(await refusal(getProfile(deps, 'team_docs', 'rival:prod'))).toEqual({
      status: 404,
      detail: "Profile 'team_docs' not found for tenant 'rival:prod'",
    });
  });
});

describe('updateProfile', () => {
  it('changes the mutable fields given, writes a new version each time and keeps every one', async () => {
    await createProfile(deps, request());
    h.clock.offset = 1000;
    expect(await updateProfile(deps, 'team_docs', update({ description: 'v2' }))).toEqual({
      profile_name: 'team_docs',
      tenant_id: 'acme:prod',
      updated_fields: ['description'],
      version: 2,
    });
    const third = await updateProfile(
      deps,
      'team_docs',
      update({
        pipeline_config: { chunk: 3 },
        model_specific: null,
        strategies: {},
        type: 'video',
        schema_name: 'code',
      }),
    );
    expect(third).toMatchObject({
      updated_fields: ['strategies', 'pipeline_config', 'model_specific'],
      version: 3,
    });
    const profile = await getProfile(deps, 'team_docs', 'acme:prod');
    expect(profile).toMatchObject({
      description: 'v2',
      pipeline_config: { chunk: 3 },
      strategies: {},
      model_specific: null,
      type: 'document',
      schema_name: 'document_text',
      version: 3,
    });
    expect(profile.updated_at).toBeGreaterThan(profile.created_at);
    expect(
      (await profileVersions(deps, 'acme:prod', 'team_docs')).map((v) => [v.version, v.description]),
    ).toEqual([
      [3, 'v2'],
      [2, 'v2'],
      [1, ''],
    ]);
  });

  it('answers 400 without a mutable field, 400 Invalid update fields for bad strategies, 404 for an unknown profile', async () => {
    await createProfile(deps, request());
    expect(
      await refusal(updateProfile(deps, 'team_docs', update({ type: 'video', embedding_model: 'x' }))),
    ).toEqual({
      status: 400,
      detail: 'No fields to update provided',
    });
    expect(
      await refusal(
        updateProfile(deps, 'team_docs', update({ strategies: { embedding: { class: 'Nope' } } })),
      ),
    ).toEqual({
      status: 400,
      detail: { message: 'Invalid update fields', errors: ["Unknown strategy class 'Nope'"] },
    });
    expect((await refusal(updateProfile(deps, 'ghost', update({ description: 'x' })))).status).toBe(404);
    expect((await getProfile(deps, 'team_docs', 'acme:prod')).version).toBe(1);
  });

  it('gives each of N concurrent updates from two processes its own version, none lost', async () => {
    await createProfile(deps, request());
    const other: ProfilesDeps = { ...deps, writes: new KeyedSerializer(), views: new ProfileViews(2000) };
    const processes = [deps, other];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        updateProfile(processes[i % 2]!, 'team_docs', update({ description: `writer ${i}` })),
      ),
    );
    expect(answers.map((a) => a.version).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 2),
    );
    const versions = await profileVersions(deps, 'acme:prod', 'team_docs');
    expect(versions).toHaveLength(21);
    expect(new Set(versions.map((v) => v.description))).toEqual(
      new Set(['', ...Array.from({ length: 20 }, (_, i) => `writer ${i}`)]),
    );
  });
});

describe('deleteProfile', () => {
  it('deletes every version; another tenant cannot delete it; an unknown one is 404', async () => {
    await createProfile(deps, request());
    await updateProfile(deps, 'team_docs', update({ description: 'v2' }));
    expect((await refusal(deleteProfile(deps, 'team_docs', 'rival:prod', false))).status).toBe(404);
    h.clock.offset = 3000;
    const deleted = await deleteProfile(deps, 'team_docs', 'acme:prod', false);
    expect(deleted).toEqual({
      profile_name: 'team_docs',
      tenant_id: 'acme:prod',
      schema_deleted: false,
      deleted_at: deleted.deleted_at,
    });
    expect(deleted.deleted_at).toBeGreaterThan(Date.now());
    expect(await profileVersions(deps, 'acme:prod', 'team_docs')).toEqual([]);
    expect((await refusal(deleteProfile(deps, 'team_docs', 'acme:prod', false))).status).toBe(404);
  });

  it('refuses delete_schema while another profile of the tenant reads the schema (409), dropping nothing', async () => {
    await createProfile(deps, request({ deploy_schema: true }));
    expect(await refusal(deleteProfile(deps, 'team_docs', 'acme:prod', true))).toEqual({
      status: 409,
      detail: "Schema 'document_text' is used by profile(s): document_text_semantic",
    });
    await createProfile(
      deps,
      request({
        profile_name: 'a_notes',
        type: 'wiki',
        schema_name: 'wiki',
        model_loader: null,
        extra_config: {},
      }),
    );
    await createProfile(
      deps,
      request({
        profile_name: 'b_notes',
        type: 'wiki',
        schema_name: 'wiki',
        model_loader: null,
        extra_config: {},
      }),
    );
    expect(await refusal(deleteProfile(deps, 'a_notes', 'acme:prod', true))).toEqual({
      status: 409,
      detail: "Schema 'wiki' is used by profile(s): b_notes",
    });
    expect((await getProfile(deps, 'a_notes', 'acme:prod')).version).toBe(1);
    expect(await h.backend.listSchemas()).toContain('document_text_acme_prod');
  });

  it('drops an unshared schema with delete_schema, and succeeds when the schema is missing', async () => {
    const wiki = { type: 'wiki', schema_name: 'wiki', model_loader: null, extra_config: {} };
    await createProfile(deps, request({ ...wiki, profile_name: 'notes', deploy_schema: true }));
    await createProfile(
      deps,
      request({ ...wiki, profile_name: 'notes', tenant_id: 'rival:prod', deploy_schema: true }),
    );
    await h.content.index.upsert('video_frames_acme_prod', h.tenancy.catalog.get('video_frames')!, []);
    expect(await deleteProfile(deps, 'notes', 'acme:prod', true)).toMatchObject({ schema_deleted: true });
    const schemas = await h.backend.listSchemas();
    expect(schemas).not.toContain('wiki_acme_prod');
    expect(schemas).toEqual(expect.arrayContaining(['wiki_rival_prod', 'video_frames_acme_prod']));
    expect((await h.tenancy.store.listRegistryRows('acme:prod')).map((r) => r.schema_name)).toEqual([
      'video_frames_acme_prod',
    ]);
    expect((await h.tenancy.store.getTenant('acme', 'prod'))!.schemas_deployed).toEqual(['video_frames']);
    await createProfile(deps, request({ ...wiki, profile_name: 'notes' }));
    expect(await deleteProfile(deps, 'notes', 'acme:prod', true)).toMatchObject({ schema_deleted: false });
  });

  it('answers 500 and drops nothing while the tenant has deployed schemas the registry cannot reconstruct', async () => {
    const wiki = { type: 'wiki', schema_name: 'wiki', model_loader: null, extra_config: {} };
    await createProfile(deps, request({ ...wiki, profile_name: 'notes', deploy_schema: true }));
    await h.backend.deploySchema('code_acme_prod', h.tenancy.catalog.get('code')!);
    const answer = await refusal(deleteProfile(deps, 'notes', 'acme:prod', true));
    expect(answer.status).toBe(500);
    expect(answer.detail).toBe(
      "Schema 'wiki_acme_prod' was not dropped: dropping it would also drop deployed schemas the registry cannot reconstruct (code_acme_prod); register or remove them first, then retry",
    );
    expect(await h.backend.listSchemas()).toContain('wiki_acme_prod');
    expect((await getProfile(deps, 'notes', 'acme:prod')).version).toBe(1);
  });

  it('refuses to drop a schema the platform deployed for itself', async () => {
    const { ensureTenantSchema } = await import('@tessera/tenancy');
    await ensureTenantSchema(h.tenancy, 'acme:prod', 'knowledge_graph');
    await createProfile(
      deps,
      request({
        profile_name: 'graph',
        type: 'wiki',
        schema_name: 'knowledge_graph',
        model_loader: null,
        extra_config: {},
      }),
    );
    const answer = await refusal(deleteProfile(deps, 'graph', 'acme:prod', true));
    expect(answer.status).toBe(409);
    expect(await h.backend.listSchemas()).toContain('knowledge_graph_acme_prod');
  });
});

describe('deployProfile', () => {
  it('deploys the schema of a tenant profile, skips it once deployed, and redeploys with force', async () => {
    await createProfile(
      deps,
      request({ profile_name: 'code_x', type: 'code', schema_name: 'code', extra_config: {} }),
    );
    const first = await deployProfile(deps, 'code_x', { tenant_id: 'acme:prod', force: false });
    expect(first).toEqual({
      profile_name: 'code_x',
      tenant_id: 'acme:prod',
      schema_name: 'code',
      tenant_schema_name: 'code_acme_prod',
      deployment_status: 'success',
      deployed_at: first.deployed_at,
    });
    expect(
      (await deployProfile(deps, 'code_x', { tenant_id: 'acme:prod', force: false })).deployment_status,
    ).toBe('already_deployed');
    expect(
      (await deployProfile(deps, 'code_x', { tenant_id: 'acme:prod', force: true })).deployment_status,
    ).toBe('success');
    expect((await getProfile(deps, 'code_x', 'acme:prod')).schema_deployed).toBe(true);
    expect((await h.tenancy.store.getTenant('acme', 'prod'))!.schemas_deployed).toContain('code');
  });

  it('deploys a shipped profile the tenant has not replaced; 404 for a name neither has', async () => {
    expect(
      await deployProfile(deps, 'image_colpali_mv', { tenant_id: 'acme:prod', force: false }),
    ).toMatchObject({
      schema_name: 'image',
      tenant_schema_name: 'image_acme_prod',
      deployment_status: 'success',
    });
    expect(await refusal(deployProfile(deps, 'nope', { tenant_id: 'acme:prod', force: false }))).toEqual({
      status: 404,
      detail: "Profile 'nope' not found for tenant 'acme:prod'",
    });
  });

  it('answers failed with the reason when the backend refuses or the template is missing', async () => {
    await h.profiles.store.append(storedProfile('acme:prod', 'orphan', 1, { schema_name: 'gone' }));
    expect(await deployProfile(deps, 'orphan', { tenant_id: 'acme:prod', force: false })).toMatchObject({
      deployment_status: 'failed',
      error_message: "Schema template 'gone_schema.json' not found",
    });
    h.backend.deploySchema = async () => {
      throw new Error('quota exceeded');
    };
    expect(
      await deployProfile(deps, 'audio_semantic', { tenant_id: 'acme:prod', force: false }),
    ).toMatchObject({
      deployment_status: 'failed',
      error_message: 'quota exceeded',
    });
  });
});

describe('tenantProfiles', () => {
  it("puts the tenant's own profiles first, replacing shipped ones of their name and taking their extensions", async () => {
    await createProfile(
      deps,
      request({
        profile_name: 'code_lateon_mv',
        type: 'code',
        schema_name: 'code',
        description: 'ours',
        extra_config: {},
      }),
    );
    await createProfile(
      deps,
      request({ profile_name: 'md_only', extra_config: { extensions: ['.md'], text_fields: ['text'] } }),
    );
    const view = await tenantProfiles(deps, 'acme:prod');
    expect(view.get('code_lateon_mv')?.description).toBe('ours');
    expect(view.get('code_lateon_mv')?.extensions).toEqual(profileCatalog.get('code_lateon_mv')!.extensions);
    expect(view.get('md_only')).toMatchObject({
      text_fields: ['text'],
      ranking_strategies: expect.arrayContaining(['bm25_only', 'hybrid_binary_bm25']),
      default_ranking_strategy: 'hybrid_binary_bm25',
    });
    expect(view.forExtension('.md')?.profile_name).toBe('md_only');
    expect(view.forExtension('.pdf')?.profile_name).toBe('document_text_semantic');
    expect(view.list().filter((p) => p.profile_name === 'code_lateon_mv')).toHaveLength(1);
    expect((await tenantProfiles(deps, 'rival:prod')).forExtension('.md')?.profile_name).toBe(
      'document_text_semantic',
    );
  });

  it('is cached for a moment, replaced at once by a change through this process, read again on demand', async () => {
    const other: ProfilesDeps = {
      ...deps,
      views: new ProfileViews(2000, h.clock.now),
      writes: new KeyedSerializer(),
    };
    expect((await tenantProfiles(other, 'acme:prod')).get('team_docs')).toBeUndefined();
    await createProfile(deps, request());
    expect((await tenantProfiles(deps, 'acme:prod')).get('team_docs')).toBeDefined();
    expect((await tenantProfiles(other, 'acme:prod')).get('team_docs')).toBeUndefined();
    expect((await tenantProfiles(other, 'acme:prod', { fresh: true })).get('team_docs')).toBeDefined();
    await deleteProfile(deps, 'team_docs', 'acme:prod', false);
    h.clock.offset += 2001;
    expect((await tenantProfiles(other, 'acme:prod')).get('team_docs')).toBeUndefined();
  });
});

describe('purgeTenantProfiles', () => {
  it("removes every version of every profile of the tenant, and only the tenant's", async () => {
    await createProfile(deps, request());
    await updateProfile(deps, 'team_docs', update({ description: 'x' }));
    await createProfile(deps, request({ tenant_id: 'rival:prod' }));
    expect(await purgeTenantProfiles(deps, 'acme:prod')).toBe(2);
    expect((await listProfiles(deps, 'acme:prod')).total_count).toBe(0);
    expect((await listProfiles(deps, 'rival:prod')).total_count).toBe(1);
  });
});
