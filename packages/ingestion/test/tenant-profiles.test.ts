/**
 * A tenant's own profiles in ingestion and search (over fakes), and the graph pass's LLM calls going to the
 * tenant's endpoint through the one LLM client (against a loopback OpenAI-compatible server).
 */
import { Profiles } from '@tessera/api';
import { putTenantConfig, rollbackTenantConfig } from '@tessera/config';
import { llmClientOf } from '@tessera/config/llm';
import { searchContent } from '@tessera/content';
import { HttpError } from '@tessera/core';
import { OpenAIClaimExtractor } from '@tessera/extractors';
import { parseLlmEnv } from '@tessera/llm';
import { createProfile, deleteProfile } from '@tessera/profiles';
import { openAIChat, useServers } from '@tessera/testing';
import { describe, expect, it } from 'vitest';
import { submitUpload } from '../src';
import { capitalized, drain, file, ingest, useIngestion } from './support';

const h = useIngestion({ entities: capitalized });
const servers = useServers();

async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

const profile = (fields: Record<string, unknown>) =>
  createProfile(
    h().profiles,
    Profiles.CreateProfileRequest.parse({
      tenant_id: 'acme',
      type: 'document',
      schema_name: 'document_text',
      embedding_model: 'lightonai/GTE-ModernColBERT-v1',
      embedding_type: 'multi_vector',
      model_loader: 'colbert',
      ...fields,
    }),
  );

describe("a tenant's own profiles", () => {
  it('take the uploads of their extensions for that tenant only, and are searched by name', async () => {
    await profile({ profile_name: 'runbooks', extra_config: { extensions: ['.md'], text_fields: ['text'] } });
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: 'acme',
      files: [
        file('rotate.md', 'Rotate the signing keys every quarter.'),
        file('guide.txt', 'Plain text guide.'),
      ],
    });
    expect(submitted.files.map((f) => [f.name, f.profile])).toEqual([
      ['rotate.md', 'runbooks'],
      ['guide.txt', 'document_text_semantic'],
    ]);
    const rival = await submitUpload(h().ingestion, { tenant_id: 'rival', files: [file('a.md', 'x')] });
    expect(rival.files[0]!.profile).toBe('document_text_semantic');
    await drain(h());
    const job = (await h().ingestion.jobs.get(submitted.job_id))!;
    expect(job.state).toBe('complete');
    const found = await searchContent(h().content, {
      query: 'signing keys',
      tenant_id: 'acme',
      profile: 'runbooks',
      top_k: 5,
    });
    expect(found).toMatchObject({ profile: 'runbooks', strategy: 'hybrid_binary_bm25' });
    expect(found.results[0]).toMatchObject({ source_doc_id: 'rotate.md', profile: 'runbooks' });
    expect(
      (
        await refusal(
          searchContent(h().content, { query: 'x', tenant_id: 'rival', profile: 'runbooks', top_k: 5 }),
        )
      ).status,
    ).toBe(400);
  });

  it('refuses uploads into a profile without a model_loader, saying why', async () => {
    await profile({
      profile_name: 'team_wiki',
      type: 'wiki',
      schema_name: 'wiki',
      model_loader: null,
      extra_config: { extensions: ['.wiki'] },
    });
    const named = await refusal(
      submitUpload(h().ingestion, { tenant_id: 'acme', profile: 'team_wiki', files: [file('a.wiki', 'x')] }),
    );
    expect(named.status).toBe(400);
    expect(named.message).toMatch(/^Profile 'team_wiki' cannot be ingested into: it names no model_loader/);
    expect(
      (await refusal(submitUpload(h().ingestion, { tenant_id: 'acme', files: [file('b.wiki', 'x')] })))
        .message,
    ).toMatch(/names no model_loader/);
  });

  it('fails the file, not the job run, when its profile was deleted before the job ran', async () => {
    await profile({ profile_name: 'short_lived', extra_config: { extensions: ['.rst'] } });
    const submitted = await submitUpload(h().ingestion, {
      tenant_id: 'acme',
      files: [file('x.rst', 'Some text.')],
    });
    await deleteProfile(h().profiles, 'short_lived', 'acme', false);
    await drain(h());
    const job = (await h().ingestion.jobs.get(submitted.job_id))!;
    expect(job.state).toBe('failed');
    expect(job.result?.files[0]).toMatchObject({
      status: 'failed',
      error_type: 'UnknownProfile',
      error: "Profile 'short_lived' no longer exists for tenant 'acme:acme'",
    });
  });
});

describe('the graph pass through the LLM client (integration: loopback OpenAI-compatible server)', () => {
  it("sends the tenant's claims calls where its llm record says, and a rollback changes the next call", async () => {
    const seen: string[] = [];
    const server = await servers.start(
      openAIChat((request) => {
        seen.push(request.model);
        return { content: { claims: [] } };
      }),
    );
    const llm = llmClientOf(h().config, parseLlmEnv({}));
    h().ingestion.extractorsFor = async (tenant) => {
      const tenantLlm = llm.forTenant(tenant);
      return {
        entities: capitalized,
        claims: (await tenantLlm.settings()) ? new OpenAIClaimExtractor(tenantLlm) : undefined,
      };
    };
    try {
      const none = await ingest(h(), 'acme', [file('before.md', 'Ada Lovelace wrote notes.')]);
      expect(none.result!.claims).toMatch(/claims skipped/);
      const record = (model: string) => ({
        model,
        api_base: `${server.url}/v1`,
        temperature: 0.1,
        max_tokens: 1000,
        context_window: null,
        request_timeout: 120,
        num_retries: 1,
        seed: null,
      });
      await putTenantConfig(h().config, 'acme', 'llm', record('openai/model-a'), 'test');
      await putTenantConfig(h().config, 'acme', 'llm', record('openai/model-b'), 'test');
      await ingest(h(), 'acme', [file('one.md', 'Ada Lovelace wrote notes.')]);
      await rollbackTenantConfig(h().config, 'acme', 'llm', 1, 'test');
      const job = await ingest(h(), 'acme', [file('two.md', 'Grace Hopper wrote compilers.')]);
      expect(job.result!.claims).toMatch(/claims extracted; entities by test:capitalized/);
      expect(seen).toEqual(['model-b', 'model-a']);
    } finally {
      h().ingestion.extractorsFor = undefined;
    }
  });
});
