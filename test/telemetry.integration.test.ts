/**
 * Telemetry through the local runtime: `/health` without and with a collector, the spans of HTTP requests,
 * ingestion jobs and LLM calls under the tenant's project at an OTLP/HTTP receiver on loopback, levels, and
 * a collector that is down never failing a request.
 */
import {
  closedPortUrl,
  type OtlpReceiver,
  openAIChat,
  type ReceivedSpan,
  startOtlpReceiver,
  startServer,
  type TestServer,
} from '@tessera/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from './support/ingestion';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
let collector: OtlpReceiver;
let llm: TestServer;

const named = (spans: ReceivedSpan[], name: string, tenant: string) =>
  spans.filter((span) => span.name === name && span.attributes['tessera.tenant_id'] === tenant);

beforeAll(async () => {
  collector = await startOtlpReceiver();
  llm = await startServer(openAIChat(() => ({ content: { claims: [] } })));
  rt = await spawnRuntime();
  for (const tenant of ['acme:prod', 'quiet:prod']) {
    expect(
      (await call(rt.url, 'POST', '/admin/tenants', { tenant_id: tenant, base_schemas: ['wiki'] })).status,
    ).toBe(201);
  }
});

afterAll(async () => {
  await rt?.stop();
  await collector?.close();
  await llm?.close();
});

describe('telemetry through the runtime (integration)', () => {
  it('says on /health that no collector is configured, exports nothing, then follows the system configuration', async () => {
    const before = await call(rt.url, 'GET', '/health');
    expect(before.status).toBe(200);
    expect(before.body.telemetry).toMatchObject({ status: 'not_configured', collector_url: null });
    expect(before.body.telemetry.message).toMatch(/No telemetry collector is configured/);
    expect(collector.contentTypes).toEqual([]);
    expect((await call(rt.url, 'PUT', '/admin/config/system', { telemetry_url: collector.url })).status).toBe(
      200,
    );
    const after = await call(rt.url, 'GET', '/health');
    expect(after.body.telemetry).toMatchObject({ status: 'configured', collector_url: collector.url });
    expect(after.body.status).toBe(before.body.status);
  });

  it('exports the spans of a request, its ingestion job and its LLM call under the tenant’s project', async () => {
    await call(rt.url, 'PUT', '/admin/tenants/acme:prod/config/llm', {
      model: 'openai/traced-model',
      api_base: `${llm.url}/v1`,
    });
    await call(rt.url, 'PUT', '/admin/tenants/acme:prod/config/telemetry', {
      tenant_project_template: 'proj-{tenant_id}',
      synchronous_export: true,
      level: 'VERBOSE',
    });
    const { status, body } = await upload(rt.url, { tenant_id: 'acme:prod', wait: 'true' }, [
      { name: 'curie.txt', content: 'Marie Curie was born in Warsaw. She moved to Paris.' },
    ]);
    expect(status).toBe(200);
    expect(body.status).toBe('complete');
    // Synchronous export: the request's span reached the collector before its answer did.
    const request = named(collector.spans, 'POST /ingestion/upload', 'acme:prod');
    expect(request).toHaveLength(1);
    expect(request[0]!.resource).toMatchObject({
      'openinference.project.name': 'proj-acme:prod',
      'service.name': 'tessera-acme:prod',
    });
    expect(request[0]!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/ingestion/upload',
      'http.response.status_code': 200,
    });
    const spans = await collector.waitFor(
      (all) =>
        named(all, 'ingestion.job', 'acme:prod').length === 1 &&
        named(all, 'llm.call', 'acme:prod').length > 0,
    );
    const [job] = named(spans, 'ingestion.job', 'acme:prod');
    const calls = named(spans, 'llm.call', 'acme:prod');
    expect(job!.attributes).toMatchObject({ 'tessera.job_id': body.job_id, 'tessera.files': 1 });
    expect(job!.resource['openinference.project.name']).toBe('proj-acme:prod');
    expect(calls.every((span) => span.traceId === job!.traceId)).toBe(true);
    expect(calls[0]!.attributes).toMatchObject({
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'traced-model',
    });
    // VERBOSE: the prompt travels with the span.
    expect(String(calls[0]!.attributes['input.value'])).toContain('Marie Curie');
  });

  it('exports nothing for a tenant at level DISABLED, and spans of tenantless requests as the system’s', async () => {
    await call(rt.url, 'PUT', '/admin/tenants/quiet:prod/config/telemetry', { level: 'DISABLED' });
    const seen = collector.spans.length;
    expect((await call(rt.url, 'GET', '/admin/profiles?tenant_id=quiet:prod')).status).toBe(200);
    expect((await call(rt.url, 'GET', '/admin/organizations')).status).toBe(200);
    const spans = await collector.waitFor((all) =>
      all.slice(seen).some((span) => span.name === 'GET /admin/organizations'),
    );
    const fresh = spans.slice(seen);
    // (The write that set DISABLED was itself recorded at the level before it.)
    expect(fresh.filter((span) => span.name === 'GET /admin/profiles')).toEqual([]);
    const organizations = fresh.find((span) => span.name === 'GET /admin/organizations')!;
    expect(organizations.attributes['tessera.tenant_id']).toBeUndefined();
    expect(organizations.resource['openinference.project.name']).toBe('tessera-__system__');
  });

  it('answers requests as usual while the tenant’s collector is down', async () => {
    const down = await closedPortUrl();
    await call(rt.url, 'PUT', '/admin/tenants/acme:prod/config/telemetry', {
      collector_url: down,
      synchronous_export: true,
    });
    // The first synchronous flush waits for the export to fail (bounded by its timeout); later ones do not
    // wait on a collector that just failed.
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const answer = await call(rt.url, 'GET', '/admin/profiles?tenant_id=acme:prod');
      times.push(performance.now() - started);
      expect(answer.status).toBe(200);
    }
    expect(times[0]).toBeLessThan(5000);
    expect(Math.max(times[1]!, times[2]!)).toBeLessThan(1500);
    const missing = await call(rt.url, 'GET', '/admin/profiles/nope?tenant_id=acme:prod');
    expect(missing.status).toBe(404);
  });
});
