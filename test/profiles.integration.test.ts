/**
 * Backend profiles through the local runtime: every route with its answers, bad input on each, a tenant's
 * profile used by an upload and a search, concurrent updates from two processes, a tenant delete emptying the
 * tenant's profiles and records, and a deploy whose template went missing.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime, tempDataDir } from './support/runtime';

let rt: RuntimeProcess;

const base = {
  tenant_id: 'acme:prod',
  type: 'document',
  schema_name: 'document_text',
  embedding_model: 'lightonai/GTE-ModernColBERT-v1',
  embedding_type: 'multi_vector',
  model_loader: 'colbert',
};
const create = (fields: Record<string, unknown>) =>
  call(rt.url, 'POST', '/admin/profiles', { ...base, ...fields });

beforeAll(async () => {
  rt = await spawnRuntime();
  for (const tenant of ['acme:prod', 'rival:prod']) {
    expect(
      (await call(rt.url, 'POST', '/admin/tenants', { tenant_id: tenant, base_schemas: ['wiki'] })).status,
    ).toBe(201);
  }
});

afterAll(async () => {
  await rt?.stop();
});

describe('profile routes through the runtime (integration)', () => {
  it('creates, gets, lists, updates, deploys and deletes a profile', async () => {
    const created = await create({
      profile_name: 'runbooks',
      description: 'Operations runbooks',
      strategies: { segmentation: { class: 'ParagraphChunker', params: { max_chars: 1500 } } },
      extra_config: { extensions: ['.md'], text_fields: ['title', 'text'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      profile_name: 'runbooks',
      tenant_id: 'acme:prod',
      schema_deployed: false,
      tenant_schema_name: null,
      schema_deploy_error: null,
      version: 1,
    });
    const got = await call(rt.url, 'GET', '/admin/profiles/runbooks?tenant_id=acme:prod');
    expect(got.body).toMatchObject({
      profile_name: 'runbooks',
      type: 'document',
      description: 'Operations runbooks',
      extra_config: { extensions: ['.md'], text_fields: ['title', 'text'] },
      version: 1,
      created_at: created.body.created_at,
    });
    const updated = await call(rt.url, 'PUT', '/admin/profiles/runbooks', {
      tenant_id: 'acme:prod',
      description: 'Runbooks, reviewed',
      schema_name: 'code',
      embedding_model: 'other/model',
    });
    expect(updated.body).toEqual({
      profile_name: 'runbooks',
      tenant_id: 'acme:prod',
      updated_fields: ['description'],
      version: 2,
    });
    expect((await call(rt.url, 'GET', '/admin/profiles/runbooks?tenant_id=acme:prod')).body).toMatchObject({
      description: 'Runbooks, reviewed',
      schema_name: 'document_text',
      embedding_model: 'lightonai/GTE-ModernColBERT-v1',
      version: 2,
    });
    const deployed = await call(rt.url, 'POST', '/admin/profiles/runbooks/deploy', {
      tenant_id: 'acme:prod',
    });
    expect(deployed.body).toMatchObject({
      schema_name: 'document_text',
      tenant_schema_name: 'document_text_acme_prod',
      deployment_status: 'success',
    });
    expect(
      (await call(rt.url, 'POST', '/admin/profiles/runbooks/deploy', { tenant_id: 'acme:prod' })).body
        .deployment_status,
    ).toBe('already_deployed');
    expect(
      (await call(rt.url, 'POST', '/admin/profiles/runbooks/deploy', { tenant_id: 'acme:prod', force: true }))
        .body.deployment_status,
    ).toBe('success');
    const listed = await call(rt.url, 'GET', '/admin/profiles?tenant_id=acme:prod');
    expect(listed.body).toMatchObject({
      total_count: 1,
      tenant_id: 'acme:prod',
      profiles: [{ profile_name: 'runbooks', schema_deployed: true, schema_name: 'document_text' }],
    });
    expect(listed.body.profiles[0].created_at).toBeGreaterThan(created.body.created_at);
    expect((await call(rt.url, 'GET', '/admin/profiles?tenant_id=rival:prod')).body.total_count).toBe(0);

    const templates = await call(rt.url, 'GET', '/admin/profile-templates?tenant_id=acme:prod');
    expect(templates.body.templates.map((t: { profile_name: string }) => t.profile_name)).toContain(
      'document_text_semantic',
    );
    expect(templates.body.model_loaders).toEqual(['colbert', 'colpali', 'colqwen', 'xclip']);

    expect((await call(rt.url, 'DELETE', '/admin/profiles/runbooks?tenant_id=rival:prod')).status).toBe(404);
    const refused = await call(
      rt.url,
      'DELETE',
      '/admin/profiles/runbooks?tenant_id=acme:prod&delete_schema=true',
    );
    expect(refused).toMatchObject({
      status: 409,
      body: { detail: "Schema 'document_text' is used by profile(s): document_text_semantic" },
    });
    const deleted = await call(rt.url, 'DELETE', '/admin/profiles/runbooks?tenant_id=acme:prod');
    expect(deleted.body).toMatchObject({
      profile_name: 'runbooks',
      tenant_id: 'acme:prod',
      schema_deleted: false,
    });
    expect((await call(rt.url, 'GET', '/admin/profiles/runbooks?tenant_id=acme:prod')).status).toBe(404);
  });

  it("uses a tenant's profile for its uploads by extension and in its searches, not another tenant's", async () => {
    expect(
      (
        await create({
          profile_name: 'notes_md',
          extra_config: { extensions: ['.md'], text_fields: ['text'] },
        })
      ).status,
    ).toBe(201);
    const { body } = await upload(rt.url, { tenant_id: 'acme:prod', wait: 'true' }, [
      { name: 'keys.md', content: 'Rotate the signing keys every quarter and record the rotation.' },
    ]);
    expect(body).toMatchObject({ status: 'complete', documents_fed: 1 });
    expect(body.files[0].profile).toBe('notes_md');
    const found = await call(rt.url, 'POST', '/search/', {
      query: 'signing keys rotation',
      tenant_id: 'acme:prod',
      profile: 'notes_md',
    });
    expect(found.status).toBe(200);
    expect(found.body.results[0]).toMatchObject({ source_doc_id: 'keys.md', profile: 'notes_md' });
    const searchable = await call(rt.url, 'GET', '/search/profiles?tenant_id=acme:prod');
    expect(searchable.body.profiles[0]).toMatchObject({ profile_name: 'notes_md', document_count: 1 });
    expect(searchable.body.profiles.map((p: { profile_name: string }) => p.profile_name)).toContain(
      'document_text_semantic',
    );
    const rival = await call(rt.url, 'GET', '/search/profiles?tenant_id=rival:prod');
    expect(rival.body.profiles.map((p: { profile_name: string }) => p.profile_name)).not.toContain(
      'notes_md',
    );
    expect(
      (
        await call(rt.url, 'POST', '/search/', {
          query: 'keys',
          tenant_id: 'rival:prod',
          profile: 'notes_md',
        })
      ).status,
    ).toBe(400);
    const other = await upload(rt.url, { tenant_id: 'rival:prod', wait: 'true' }, [
      { name: 'x.md', content: 'Text.' },
    ]);
    expect(other.body.files[0].profile).toBe('document_text_semantic');
  });

  it('refuses uploads into a profile without model_loader, which deploys all the same', async () => {
    expect(
      (
        await create({
          profile_name: 'team_wiki',
          type: 'wiki',
          schema_name: 'wiki',
          model_loader: null,
          extra_config: { extensions: ['.wiki'] },
        })
      ).status,
    ).toBe(201);
    expect(
      (await call(rt.url, 'POST', '/admin/profiles/team_wiki/deploy', { tenant_id: 'acme:prod' })).body
        .deployment_status,
    ).toMatch(/success|already_deployed/);
    const refused = await upload(rt.url, { tenant_id: 'acme:prod', profile: 'team_wiki' }, [
      { name: 'page.wiki', content: 'x' },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(
      /^Profile 'team_wiki' cannot be ingested into: it names no model_loader/,
    );
  });
});

describe('profile routes refuse bad input and change nothing (integration)', () => {
  const stored = async () =>
    (await call(rt.url, 'GET', '/admin/profiles?tenant_id=rival:prod')).body.total_count;

  it('POST /admin/profiles: missing, wrong-typed, oversized and unknown fields (422)', async () => {
    const before = await stored();
    const post = (body: unknown) => call(rt.url, 'POST', '/admin/profiles', body);
    const missing = await post({});
    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((issue: { loc: string[] }) => issue.loc[1]).sort()).toEqual([
      'embedding_model',
      'embedding_type',
      'profile_name',
      'schema_name',
      'tenant_id',
    ]);
    const valid = { ...base, tenant_id: 'rival:prod', profile_name: 'p' };
    for (const bad of [
      { profile_name: 5 },
      { deploy_schema: 'yes' },
      { strategies: [] },
      { schema_config: 'big' },
      { model_specific: 3 },
      { tenant_id: '' },
      { description: 'x'.repeat(10_001) },
      { profile_name: 'x'.repeat(1001) },
      { extra_config: { blob: 'x'.repeat(100_001) } },
      { colour: 'red' },
    ]) {
      const answer = await post({ ...valid, ...bad });
      expect(answer.status, JSON.stringify(bad).slice(0, 80)).toBe(422);
    }
    expect((await post({ ...valid, colour: 'red' })).body.detail[0]).toMatchObject({
      type: 'extra_forbidden',
    });
    expect((await post([])).status).toBe(422);
    expect((await post('null')).status).toBe(422);
    expect(
      (
        await call(rt.url, 'POST', '/admin/profiles', '{"profile_name": ', {
          'content-type': 'application/json',
        })
      ).status,
    ).toBe(422);
    expect(await stored()).toBe(before);
  });

  it('POST /admin/profiles: business rules (400), names at and past 100, embedding_dim bounds', async () => {
    const before = await stored();
    const post = (fields: Record<string, unknown>) =>
      call(rt.url, 'POST', '/admin/profiles', {
        ...base,
        tenant_id: 'rival:prod',
        profile_name: 'p',
        ...fields,
      });
    const errorsOf = async (fields: Record<string, unknown>) => {
      const answer = await post(fields);
      expect(answer.status).toBe(400);
      expect(answer.body.detail.message).toBe('Profile validation failed');
      return answer.body.detail.errors as string[];
    };
    expect(await errorsOf({ profile_name: 'n'.repeat(101) })).toEqual([
      `Invalid profile_name '${'n'.repeat(101)}': use at most 100 letters, digits, underscores or hyphens`,
    ]);
    for (const dim of [0, 100_001, 1.5]) {
      expect(await errorsOf({ schema_config: { embedding_dim: dim } })).toEqual([
        'schema_config.embedding_dim must be an integer from 1 to 100000',
      ]);
    }
    expect(await errorsOf({ extra_config: { embedding_model: 'x', version: 2 } })).toEqual([
      "extra_config key 'embedding_model' names a profile field",
      "extra_config key 'version' names a profile field",
    ]);
    expect(
      await errorsOf({
        embedding_type: 'sparse',
        schema_name: 'missing',
        type: 'pdf',
        strategies: { a: { class: 'Z' } },
      }),
    ).toEqual([
      "Invalid type 'pdf': expected one of video, image, audio, document, code, wiki",
      "Schema template 'missing_schema.json' not found",
      "Invalid embedding_type 'sparse': expected 'multi_vector' or 'single_vector'",
      "Unknown strategy class 'Z'",
    ]);
    expect(await stored()).toBe(before);
    expect((await post({ profile_name: 'n'.repeat(100) })).status).toBe(201);
    expect((await post({ profile_name: 'dim_max', schema_config: { embedding_dim: 100_000 } })).status).toBe(
      201,
    );
    expect(await errorsOf({ profile_name: 'dim_max' })).toEqual([
      "Profile 'dim_max' already exists for tenant 'rival:prod'",
    ]);
    expect((await post({ tenant_id: 'a:b:c' })).status).toBe(400);
    expect(await post({ tenant_id: 'ghost' })).toMatchObject({
      status: 404,
      body: { detail: "Tenant 'ghost:ghost' not registered." },
    });
  });

  it('the read routes: a missing, malformed or unregistered tenant, an unknown profile', async () => {
    for (const route of ['/admin/profiles', '/admin/profile-templates', '/admin/profiles/dim_max']) {
      expect((await call(rt.url, 'GET', route)).status, route).toBe(422);
      expect((await call(rt.url, 'GET', `${route}?tenant_id=a-b`)).status, route).toBe(400);
      expect((await call(rt.url, 'GET', `${route}?tenant_id=ghost`)).status, route).toBe(404);
    }
    expect(await call(rt.url, 'GET', '/admin/profiles/nope?tenant_id=rival:prod')).toMatchObject({
      status: 404,
      body: { detail: "Profile 'nope' not found for tenant 'rival:prod'" },
    });
  });

  it('PUT /admin/profiles/{name}: no mutable field, bad strategies, wrong types, an unknown profile', async () => {
    const put = (name: string, body: unknown) => call(rt.url, 'PUT', `/admin/profiles/${name}`, body);
    expect((await put('dim_max', {})).status).toBe(422);
    expect(await put('dim_max', { tenant_id: 'rival:prod', type: 'video', schema_config: {} })).toMatchObject(
      {
        status: 400,
        body: { detail: 'No fields to update provided' },
      },
    );
    expect(
      await put('dim_max', { tenant_id: 'rival:prod', strategies: { seg: { class: 'Nope' } } }),
    ).toMatchObject({
      status: 400,
      body: { detail: { message: 'Invalid update fields', errors: ["Unknown strategy class 'Nope'"] } },
    });
    expect((await put('dim_max', { tenant_id: 'rival:prod', description: 7 })).status).toBe(422);
    expect((await put('dim_max', { tenant_id: 'rival:prod', pipeline_config: [] })).status).toBe(422);
    expect((await put('dim_max', { tenant_id: 'rival:prod', description: 'x'.repeat(10_001) })).status).toBe(
      422,
    );
    expect((await put('nope', { tenant_id: 'rival:prod', description: 'x' })).status).toBe(404);
    expect((await call(rt.url, 'GET', '/admin/profiles/dim_max?tenant_id=rival:prod')).body.version).toBe(1);
  });

  it('DELETE and deploy: bad flags and bodies, unknown profiles', async () => {
    expect(
      (await call(rt.url, 'DELETE', '/admin/profiles/dim_max?tenant_id=rival:prod&delete_schema=maybe'))
        .status,
    ).toBe(422);
    expect((await call(rt.url, 'DELETE', '/admin/profiles/dim_max')).status).toBe(422);
    expect((await call(rt.url, 'DELETE', '/admin/profiles/nope?tenant_id=rival:prod')).status).toBe(404);
    const deploy = (name: string, body: unknown) =>
      call(rt.url, 'POST', `/admin/profiles/${name}/deploy`, body);
    expect((await deploy('dim_max', {})).status).toBe(422);
    expect((await deploy('dim_max', { tenant_id: 'rival:prod', force: 'yes' })).status).toBe(422);
    expect((await deploy('dim_max', { tenant_id: 'rival:prod', extra: 1 })).status).toBe(422);
    expect((await deploy('nope', { tenant_id: 'rival:prod' })).status).toBe(404);
    expect((await call(rt.url, 'GET', '/admin/profiles/dim_max?tenant_id=rival:prod')).status).toBe(200);
  });
});

describe('profiles and other processes (integration)', () => {
  it('gives each of N concurrent updates from two processes its own version, keeping every one', async () => {
    const second = await spawnRuntime({
      dataDir: rt.dataDir,
      env: { AWS_ENDPOINT_URL: rt.emulatorUrl!, TESSERA_QUEUE_WORKERS: 'off', TESSERA_SCHEDULER: 'off' },
    });
    try {
      expect((await create({ profile_name: 'contended' })).status).toBe(201);
      const writers = 20;
      const answers = await Promise.all(
        Array.from({ length: writers }, (_, i) =>
          call(i % 2 ? second.url : rt.url, 'PUT', '/admin/profiles/contended', {
            tenant_id: 'acme:prod',
            description: `writer ${i}`,
          }),
        ),
      );
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      expect(answers.map((answer) => answer.body.version).sort((a: number, b: number) => a - b)).toEqual(
        Array.from({ length: writers }, (_, i) => i + 2),
      );
      expect(
        (await call(second.url, 'GET', '/admin/profiles/contended?tenant_id=acme:prod')).body.version,
      ).toBe(writers + 1);
      process.env.AWS_ENDPOINT_URL = rt.emulatorUrl;
      process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
      process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
      const { DynamoProfileStore } = await import('@tessera/profiles');
      const versions = await new DynamoProfileStore().versions('acme:prod', 'contended');
      expect(versions.map((v) => v.version)).toEqual(
        Array.from({ length: writers + 1 }, (_, i) => writers + 1 - i),
      );
      expect(new Set(versions.map((v) => v.description)).size).toBe(writers + 1);
    } finally {
      await second.stop();
    }
  });

  it("empties a deleted tenant's profiles and configuration records", async () => {
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'gone:x' })).status).toBe(201);
    expect((await create({ tenant_id: 'gone:x', profile_name: 'kept_nowhere' })).status).toBe(201);
    expect((await call(rt.url, 'PUT', '/admin/tenants/gone:x/config/llm', { model: 'm' })).status).toBe(200);
    expect((await call(rt.url, 'DELETE', '/admin/tenants/gone:x')).status).toBe(200);
    expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'gone:x' })).status).toBe(201);
    expect((await call(rt.url, 'GET', '/admin/profiles?tenant_id=gone:x')).body.total_count).toBe(0);
    expect((await call(rt.url, 'GET', '/admin/tenants/gone:x/config/llm')).body.version).toBe(0);
    expect((await call(rt.url, 'GET', '/admin/tenants/gone:x/config/llm/history')).body.versions).toEqual([]);
  });
});

describe('a profile whose schema template went missing (integration)', () => {
  it('still reads, and its deploy answers failed with the reason', async () => {
    const configDir = mkdtempSync(path.join(tmpdir(), 'tessera-configs-'));
    cpSync(path.resolve(import.meta.dirname, '../configs'), configDir, { recursive: true });
    const custom = path.join(configDir, 'schemas', 'custom_notes_schema.json');
    writeFileSync(
      custom,
      JSON.stringify({
        name: 'custom_notes',
        document: {
          fields: [
            { name: 'document_id', type: 'string' },
            { name: 'source_doc_id', type: 'string' },
            { name: 'text', type: 'string', fulltext: true },
          ],
        },
      }),
    );
    const dataDir = tempDataDir();
    const env = { TESSERA_CONFIG_DIR: configDir, TESSERA_QUEUE_WORKERS: 'off' };
    let own = await spawnRuntime({ dataDir, env });
    try {
      expect(
        (await call(own.url, 'POST', '/admin/tenants', { tenant_id: 'lab', base_schemas: ['wiki'] })).status,
      ).toBe(201);
      const created = await call(own.url, 'POST', '/admin/profiles', {
        ...base,
        tenant_id: 'lab',
        profile_name: 'custom',
        type: 'wiki',
        schema_name: 'custom_notes',
        model_loader: null,
      });
      expect(created.status).toBe(201);
      await own.stop();
      rmSync(custom);
      own = await spawnRuntime({ dataDir, env });
      expect((await call(own.url, 'GET', '/admin/profiles/custom?tenant_id=lab')).body.schema_name).toBe(
        'custom_notes',
      );
      const deployed = await call(own.url, 'POST', '/admin/profiles/custom/deploy', { tenant_id: 'lab' });
      expect(deployed.body).toMatchObject({
        deployment_status: 'failed',
        tenant_schema_name: 'custom_notes_lab_lab',
        error_message: "Schema template 'custom_notes_schema.json' not found",
      });
      expect((await call(own.url, 'GET', '/search/profiles?tenant_id=lab')).status).toBe(200);
    } finally {
      await own.stop();
    }
  });
});
