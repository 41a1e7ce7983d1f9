import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { Config } from '@tessera/api';
import {
  closedPortUrl,
  decodeProtobufTraces,
  type OtlpReceiver,
  startOtlpReceiver,
  startServer,
} from '@tessera/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Telemetry, TelemetryProbeError, type TelemetrySources } from '../src';

const receivers: OtlpReceiver[] = [];
const open: Telemetry[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((telemetry) => telemetry.shutdown()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver();
  receivers.push(started);
  return started;
}

/** Records by tenant (defaults for the others), a system collector, and a clock the test moves. */
function setup(options: {
  records?: Record<string, Partial<Config.TelemetryConfig>>;
  systemUrl?: string | null;
  envUrl?: string;
  maxCachedTenants?: number;
  timeoutMs?: number;
}) {
  const records = options.records ?? {};
  const clock = { now: 1_000_000 };
  const reads: string[] = [];
  const sources: TelemetrySources = {
    async tenantRecord(tenantId) {
      reads.push(tenantId);
      return Config.TelemetryConfig.parse(records[tenantId] ?? {});
    },
    systemUrl: async () => options.systemUrl ?? null,
  };
  const telemetry = new Telemetry(
    sources,
    {
      telemetryUrl: options.envUrl,
      telemetryMaxCachedTenants: options.maxCachedTenants ?? 100,
      telemetryExportTimeoutMs: options.timeoutMs ?? 2000,
    },
    () => clock.now,
  );
  open.push(telemetry);
  return { telemetry, records, clock, reads };
}

describe('Telemetry', () => {
  it('exports each tenant’s spans over OTLP/HTTP under its project name, children under their parent', async () => {
    const collector = await receiver();
    const { telemetry } = setup({ envUrl: collector.url });
    const answer = await telemetry.span(
      'acme:prod',
      'HTTP GET /search/',
      { kind: 'server' },
      async (scope) => {
        scope.set({ 'http.route': '/search/' });
        return telemetry.span('acme:prod', 'llm.call', { kind: 'client' }, async () => 42);
      },
    );
    expect(answer).toBe(42);
    await telemetry.span('beta:b', 'ingestion.job', {}, async () => undefined);
    await telemetry.flush();
    const spans = await collector.waitFor((all) => all.length === 3);
    expect(collector.contentTypes[0]).toBe('application/json');
    const http = spans.find((span) => span.name === 'HTTP GET /search/')!;
    const llm = spans.find((span) => span.name === 'llm.call')!;
    const job = spans.find((span) => span.name === 'ingestion.job')!;
    expect(http.resource['openinference.project.name']).toBe('tessera-acme:prod');
    expect(http.resource['service.name']).toBe('tessera-acme:prod');
    expect(http.attributes).toMatchObject({ 'tessera.tenant_id': 'acme:prod', 'http.route': '/search/' });
    expect(http.kind).toBe(2);
    expect(http.parentSpanId).toBe('');
    expect(llm.parentSpanId).toBe(http.spanId);
    expect(llm.traceId).toBe(http.traceId);
    expect(llm.kind).toBe(3);
    expect(job.resource['openinference.project.name']).toBe('tessera-beta:b');
    expect(job.attributes['tessera.tenant_id']).toBe('beta:b');
  });

  it('takes the tenant’s collector and project template over the system’s and the environment’s', async () => {
    const [own, system, env] = [await receiver(), await receiver(), await receiver()];
    const { telemetry } = setup({
      records: { 'a:a': { collector_url: own.url, tenant_project_template: 'proj-{tenant_id}-x' } },
      systemUrl: system.url,
      envUrl: env.url,
    });
    await telemetry.span('a:a', 'one', {}, async () => undefined);
    await telemetry.span('b:b', 'two', {}, async () => undefined);
    await telemetry.flush();
    await own.waitFor((spans) => spans.length === 1);
    await system.waitFor((spans) => spans.length === 1);
    expect(own.spans[0]!.resource['openinference.project.name']).toBe('proj-a:a-x');
    expect(system.spans[0]!.name).toBe('two');
    expect(env.spans).toEqual([]);
  });

  it('records attributes by level and exports nothing at DISABLED', async () => {
    const collector = await receiver();
    const { telemetry } = setup({
      envUrl: collector.url,
      records: {
        'b:b': { level: 'BASIC' },
        'd:d': { level: 'DETAILED' },
        'v:v': { level: 'VERBOSE' },
        'x:x': { level: 'DISABLED' },
      },
    });
    for (const tenant of ['b:b', 'd:d', 'v:v', 'x:x']) {
      const ran = await telemetry.span(tenant, `span ${tenant}`, {}, async (scope) => {
        scope.set({ basic: 1 });
        scope.detail({ detailed: 2 });
        scope.verbose({ verbose: 3 });
        return scope.recording;
      });
      expect(ran).toBe(tenant !== 'x:x');
    }
    await telemetry.flush();
    const spans = await collector.waitFor((all) => all.length === 3);
    const attrs = (tenant: string) => spans.find((span) => span.name === `span ${tenant}`)?.attributes;
    expect(attrs('b:b')).toMatchObject({ basic: 1 });
    expect(attrs('b:b')).not.toHaveProperty('detailed');
    expect(attrs('d:d')).toMatchObject({ basic: 1, detailed: 2 });
    expect(attrs('d:d')).not.toHaveProperty('verbose');
    expect(attrs('v:v')).toMatchObject({ basic: 1, detailed: 2, verbose: 3 });
    expect(attrs('x:x')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(collector.spans).toHaveLength(3);
  });

  it('exports nothing and runs the work when no collector is configured', async () => {
    const { telemetry } = setup({});
    expect(await telemetry.span('a:a', 'x', {}, async (scope) => (scope.recording ? 'rec' : 'plain'))).toBe(
      'plain',
    );
    expect(telemetry.cached()).toEqual([]);
    expect(await telemetry.deploymentCollector()).toBeNull();
  });

  it('records a failing body as an error span and rethrows its error', async () => {
    const collector = await receiver();
    const { telemetry } = setup({ envUrl: collector.url, records: { 'a:a': { synchronous_export: true } } });
    await expect(
      telemetry.span('a:a', 'boom', {}, async () => {
        throw new Error('it broke');
      }),
    ).rejects.toThrow('it broke');
    expect(collector.spans).toHaveLength(1);
    expect(collector.spans[0]!.status).toEqual({ code: 2, message: 'it broke' });
  });

  it('with synchronous export, has the root span at the collector when the span returns', async () => {
    const collector = await receiver();
    const { telemetry } = setup({ envUrl: collector.url, records: { 's:s': { synchronous_export: true } } });
    await telemetry.span('s:s', 'root', {}, () => telemetry.span('s:s', 'child', {}, async () => undefined));
    expect(collector.spans.map((span) => span.name).sort()).toEqual(['child', 'root']);
  });

  it('never fails the work when the collector is down, and a synchronous flush is bounded', async () => {
    const down = await closedPortUrl();
    const { telemetry } = setup({
      envUrl: down,
      timeoutMs: 400,
      records: { 's:s': { synchronous_export: true } },
    });
    const started = performance.now();
    expect(await telemetry.span('s:s', 'x', {}, async () => 'done')).toBe('done');
    expect(await telemetry.span('a:a', 'y', {}, async () => 'also')).toBe('also');
    await telemetry.flush();
    expect(performance.now() - started).toBeLessThan(3000);
    expect(telemetry.stats.failed).toBeGreaterThanOrEqual(1);
  });

  it('also answers when the collector hangs: the export gives up after its timeout', async () => {
    const hanging = await startServer(() => 'hang');
    const { telemetry } = setup({
      envUrl: hanging.url,
      timeoutMs: 300,
      records: { 's:s': { synchronous_export: true } },
    });
    const started = performance.now();
    expect(await telemetry.span('s:s', 'x', {}, async () => 'done')).toBe('done');
    expect(performance.now() - started).toBeLessThan(2000);
    await hanging.close();
  });

  it('keeps at most max_cached_tenants tracers, dropping the least recently used', async () => {
    const collector = await receiver();
    const { telemetry } = setup({ envUrl: collector.url, maxCachedTenants: 2 });
    for (const tenant of ['a:a', 'b:b', 'a:a', 'c:c']) {
      await telemetry.span(tenant, `s ${tenant}`, {}, async () => undefined);
    }
    expect(telemetry.cached().map((entry) => entry.tenantId)).toEqual(['a:a', 'c:c']);
    // The dropped tenant's spans were exported on its way out.
    await telemetry.flush();
    await collector.waitFor((spans) => spans.some((span) => span.name === 's b:b'));
  });

  it('rebuilds a tenant’s tracer after tenant_cache_ttl_seconds and when its record changes', async () => {
    const collector = await receiver();
    const { telemetry, clock, records } = setup({
      envUrl: collector.url,
      records: { 't:t': { tenant_cache_ttl_seconds: 60 } },
    });
    await telemetry.span('t:t', 'first', {}, async () => undefined);
    const [first] = telemetry.cached();
    expect(first!.expiresAt).toBe(clock.now + 60_000);
    clock.now += 30_000;
    await telemetry.span('t:t', 'second', {}, async () => undefined);
    expect(telemetry.cached()[0]!.expiresAt).toBe(first!.expiresAt);
    clock.now += 31_000;
    await telemetry.span('t:t', 'third', {}, async () => undefined);
    expect(telemetry.cached()[0]!.expiresAt).toBe(clock.now + 60_000);
    records['t:t'] = { tenant_cache_ttl_seconds: 60, tenant_project_template: 'renamed-{tenant_id}' };
    await telemetry.span('t:t', 'fourth', {}, async () => undefined);
    await telemetry.flush();
    const spans = await collector.waitFor((all) => all.length === 4);
    expect(spans.find((span) => span.name === 'fourth')!.resource['openinference.project.name']).toBe(
      'renamed-t:t',
    );
    expect(spans.find((span) => span.name === 'third')!.resource['openinference.project.name']).toBe(
      'tessera-t:t',
    );
  });

  it('does not fail the work when the tenant’s record cannot be read, and follows the environment', async () => {
    const collector = await receiver();
    const telemetry = new Telemetry(
      {
        tenantRecord: async () => {
          throw new Error('table unavailable');
        },
        systemUrl: async () => null,
      },
      { telemetryUrl: collector.url, telemetryMaxCachedTenants: 10, telemetryExportTimeoutMs: 200 },
    );
    open.push(telemetry);
    expect(await telemetry.span('a:a', 'x', {}, async () => 7)).toBe(7);
    await telemetry.flush();
    const [span] = await collector.waitFor((spans) => spans.length === 1);
    expect(span!.resource['openinference.project.name']).toBe('tessera-a:a');
  });

  describe('probe', () => {
    it('exports a probe span under the tenant’s project and answers where it went', async () => {
      const collector = await receiver();
      const { telemetry } = setup({ envUrl: collector.url });
      expect(await telemetry.probe('acme:prod')).toEqual({
        collector: collector.url,
        project: 'tessera-acme:prod',
      });
      expect(collector.spans[0]).toMatchObject({
        name: 'telemetry.probe',
        resource: { 'openinference.project.name': 'tessera-acme:prod' },
      });
    });

    it('fails with one line when no collector is configured or it is down', async () => {
      await expect(setup({}).telemetry.probe('a:a')).rejects.toThrow(
        new TelemetryProbeError('telemetry collector not configured'),
      );
      const down = await closedPortUrl();
      const error = await setup({ envUrl: down, timeoutMs: 500 })
        .telemetry.probe('a:a')
        .catch((e: Error) => e);
      expect(error).toBeInstanceOf(TelemetryProbeError);
      expect((error as Error).message).toMatch(new RegExp(`^telemetry collector at ${down} `));
      expect((error as Error).message).not.toContain('\n');
    });
  });
});

describe('the OTLP receiver', () => {
  it('decodes the protobuf encoding of the same spans', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
    const parent = provider.getTracer('t').startSpan('parent', { attributes: { n: 3, ok: true, s: 'x' } });
    parent.setStatus({ code: 2, message: 'bad' });
    parent.end();
    const bytes = ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!;
    const [span] = decodeProtobufTraces(Buffer.from(bytes));
    expect(span).toMatchObject({
      name: 'parent',
      attributes: { n: 3, ok: true, s: 'x' },
      status: { code: 2, message: 'bad' },
      spanId: parent.spanContext().spanId,
      traceId: parent.spanContext().traceId,
    });
    expect(span!.resource['service.name']).toMatch(/^unknown_service/);
    await provider.shutdown();
  });
});
