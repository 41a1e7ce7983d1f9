/**
 * Tracing per tenant (document 2, "Telemetry configuration"): each tenant's spans go over OTLP/HTTP to its
 * collector under its project name (`openinference.project.name`), at its level. A tenant's tracer (an
 * OpenTelemetry provider with its exporter) is built on its first span and kept in a cache bounded by
 * `max_cached_tenants`, each entry for its record's `tenant_cache_ttl_seconds`, and rebuilt when the record
 * changes. Telemetry never fails the work it observes: a collector that is down, a record that cannot be read,
 * an export that times out only lose spans.
 */
import {
  type Attributes,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TimeInput,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import type { Config } from '@tessera/api';
import { log } from '@tessera/core';
import { type TelemetryEnv, telemetryEnv } from './env';
import {
  defaultTelemetryRecord,
  reaches,
  resolveTelemetry,
  SYSTEM_TENANT,
  type TelemetryLevel,
  type TelemetrySettings,
  tracesUrl,
} from './settings';

/** Where the tracer reads a tenant's telemetry record and the system configuration's collector. */
export interface TelemetrySources {
  /** The tenant's telemetry record (its defaults while never written). */
  tenantRecord(tenantId: string): Promise<Config.TelemetryConfig>;
  /** The system configuration's `telemetry_url`. */
  systemUrl(): Promise<string | null>;
}

/** Only the environment: no tenant records, no system configuration. */
export const environmentSources: TelemetrySources = {
  tenantRecord: async () => defaultTelemetryRecord(),
  systemUrl: async () => null,
};

/** What a span's body may add to it; attributes of a level the tenant does not reach are dropped. */
export interface SpanScope {
  /** Recorded at every level. */
  set(attributes: Attributes): void;
  /** Recorded from `DETAILED` on. */
  detail(attributes: Attributes): void;
  /** Recorded at `VERBOSE` only (payloads such as prompts and answers). */
  verbose(attributes: Attributes): void;
  /** Marks the span failed without an exception (an HTTP 5xx answer). */
  fail(message: string): void;
  /** False when nothing is recorded (no collector, level `DISABLED`). */
  readonly recording: boolean;
}

export interface SpanOptions {
  kind?: 'server' | 'internal' | 'client' | 'consumer';
  attributes?: Attributes;
  /** The span's start, when it began before its tenant was known. */
  startTime?: TimeInput;
}

const KINDS = {
  server: SpanKind.SERVER,
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  consumer: SpanKind.CONSUMER,
} as const;

const NOOP_SCOPE: SpanScope = {
  set: () => undefined,
  detail: () => undefined,
  verbose: () => undefined,
  fail: () => undefined,
  recording: false,
};

/** How long a collector whose export failed is not waited on by synchronous flushes. */
const DOWN_BACKOFF_MS = 30_000;

/** The attribute naming a span's tenant. */
export const TENANT_ATTRIBUTE = 'tessera.tenant_id';

/** An exporter that tells its owner how each export went. */
class ReportingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly onResult: (result: ExportResult) => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      this.onResult(result);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

interface Entry {
  settings: TelemetrySettings;
  fingerprint: string;
  provider: NodeTracerProvider;
  expiresAt: number;
}

let contextInstalled = false;

/** Spans nest through async calls: one AsyncLocalStorage context manager for the process. */
function installContext(): void {
  if (contextInstalled) return;
  contextInstalled = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

/** Resolves after `ms` (unref'd) with `value`. */
const after = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms).unref());

export interface TelemetryStats {
  exported: number;
  failed: number;
  lastError?: string;
}

export class Telemetry {
  private readonly entries = new Map<string, Entry>();
  private readonly failureLogged = new Map<string, number>();
  /** Collectors whose last export failed: synchronous flushes do not wait on them for a while. */
  private readonly downUntil = new Map<string, number>();
  readonly stats: TelemetryStats = { exported: 0, failed: 0 };

  constructor(
    private sources: TelemetrySources = environmentSources,
    private readonly env: TelemetryEnv = telemetryEnv,
    private readonly now: () => number = Date.now,
  ) {
    installContext();
  }

  /** Reads tenants' records through `sources` from now on (the configuration records, once wired). */
  useSources(sources: TelemetrySources): void {
    this.sources = sources;
  }

  /** The settings a span of the tenant (null: of no tenant) would be recorded with now. */
  async settings(tenantId: string | null): Promise<TelemetrySettings> {
    const id = tenantId ?? SYSTEM_TENANT;
    const [record, systemUrl] = await Promise.all([
      tenantId === null ? defaultTelemetryRecord() : this.sources.tenantRecord(tenantId),
      this.sources.systemUrl(),
    ]);
    return resolveTelemetry({ tenantId: id, record, systemUrl, envUrl: this.env.telemetryUrl });
  }

  /** The deployment's collector (system configuration, else `TESSERA_TELEMETRY_URL`), for `/health`. */
  async deploymentCollector(): Promise<string | null> {
    return (await this.sources.systemUrl()) ?? this.env.telemetryUrl ?? null;
  }

  /** The tracers the process holds (tenant and expiry), most recently used last. */
  cached(): { tenantId: string; expiresAt: number }[] {
    return [...this.entries.entries()].map(([tenantId, entry]) => ({ tenantId, expiresAt: entry.expiresAt }));
  }

  /** The tenant's provider, built or rebuilt as needed; undefined when nothing is to be recorded. */
  private async entry(tenantId: string | null): Promise<Entry | undefined> {
    let settings: TelemetrySettings;
    try {
      settings = await this.settings(tenantId);
    } catch (error) {
      // The store being out is the request's own business (and what /health reports); its span follows
      // the environment meanwhile.
      log.debug('telemetry records unreadable; the environment’s settings apply', {
        tenant: tenantId,
        error,
      });
      settings = resolveTelemetry({
        tenantId: tenantId ?? SYSTEM_TENANT,
        record: defaultTelemetryRecord(),
        systemUrl: null,
        envUrl: this.env.telemetryUrl,
      });
    }
    const key = settings.tenantId;
    if (!settings.collectorUrl || settings.level === 'DISABLED') {
      this.retire(key);
      return undefined;
    }
    const fingerprint = JSON.stringify(settings);
    const cached = this.entries.get(key);
    if (cached && cached.fingerprint === fingerprint && cached.expiresAt > this.now()) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    this.retire(key);
    const entry: Entry = {
      settings,
      fingerprint,
      provider: this.provider(settings, settings.collectorUrl),
      expiresAt: this.now() + settings.ttlMs,
    };
    this.entries.set(key, entry);
    while (this.entries.size > this.env.telemetryMaxCachedTenants) {
      this.retire(this.entries.keys().next().value!);
    }
    return entry;
  }

  private provider(settings: TelemetrySettings, collectorUrl: string): NodeTracerProvider {
    const exporter = new ReportingExporter(
      new OTLPTraceExporter({
        url: tracesUrl(collectorUrl),
        timeoutMillis: this.env.telemetryExportTimeoutMs,
      }),
      (result) => this.record(collectorUrl, result),
    );
    return new NodeTracerProvider({
      resource: resourceFromAttributes({
        'service.name': settings.service,
        'openinference.project.name': settings.project,
        [TENANT_ATTRIBUTE]: settings.tenantId,
      }),
      spanProcessors: [
        settings.synchronous
          ? new SimpleSpanProcessor(exporter)
          : new BatchSpanProcessor(exporter, {
              scheduledDelayMillis: 1000,
              exportTimeoutMillis: this.env.telemetryExportTimeoutMs,
            }),
      ],
    });
  }

  private record(collectorUrl: string, result: ExportResult): void {
    if (result.code === ExportResultCode.SUCCESS) {
      this.stats.exported++;
      this.downUntil.delete(collectorUrl);
      return;
    }
    this.stats.failed++;
    this.downUntil.set(collectorUrl, this.now() + DOWN_BACKOFF_MS);
    this.stats.lastError = result.error?.message ?? 'export failed';
    // A collector that is down is worth one line a minute, not one a span.
    const last = this.failureLogged.get(collectorUrl) ?? 0;
    if (this.now() - last >= 60_000) {
      this.failureLogged.set(collectorUrl, this.now());
      log.warn('telemetry export failed; spans dropped', {
        collector: collectorUrl,
        error: this.stats.lastError,
      });
    }
  }

  /** Drops the tenant's tracer; its spans still queued are exported on the way out. */
  private retire(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    void entry.provider.shutdown().catch(() => undefined);
  }

  /**
   * Runs `body` inside a span of the tenant (null: of no tenant). The span records the body's failure and
   * rethrows it; a root span of a tenant with synchronous export is flushed before this returns (before a
   * Lambda invocation can end).
   */
  async span<T>(
    tenantId: string | null,
    name: string,
    options: SpanOptions,
    body: (scope: SpanScope) => Promise<T>,
  ): Promise<T> {
    const entry = await this.entry(tenantId);
    if (!entry) return body(NOOP_SCOPE);
    const parent = context.active();
    const root = trace.getSpan(parent) === undefined;
    const span = entry.provider.getTracer('tessera').startSpan(
      name,
      {
        kind: KINDS[options.kind ?? 'internal'],
        attributes: { ...(tenantId === null ? {} : { [TENANT_ATTRIBUTE]: tenantId }), ...options.attributes },
        startTime: options.startTime,
      },
      parent,
    );
    try {
      return await context.with(trace.setSpan(parent, span), () => body(scopeOf(span, entry.settings.level)));
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      span.recordException(err);
      span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
      throw error;
    } finally {
      span.end();
      if (root && entry.settings.synchronous) await this.flushEntry(entry);
    }
  }

  private async flushEntry(entry: Entry): Promise<void> {
    const collector = entry.settings.collectorUrl ?? '';
    if ((this.downUntil.get(collector) ?? 0) > this.now()) {
      // Its collector just failed: export in the background rather than hold every request for the timeout.
      void entry.provider.forceFlush().catch(() => undefined);
      return;
    }
    await Promise.race([
      entry.provider.forceFlush().catch(() => undefined),
      after(this.env.telemetryExportTimeoutMs, undefined),
    ]);
  }

  /** Exports every queued span of every tenant (bounded by the export timeout); never throws. */
  async flush(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => this.flushEntry(entry)));
  }

  /** Flushes and drops every tracer. */
  async shutdown(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(
      entries.map((entry) =>
        Promise.race([
          entry.provider.shutdown().catch(() => undefined),
          after(this.env.telemetryExportTimeoutMs, undefined),
        ]),
      ),
    );
  }

  /**
   * Exports one probe span of the tenant and waits for the collector's answer, so that the tenant's project
   * exists there (provisioning's `telemetry` step). Throws a one-line error when no collector is configured
   * or the collector does not take the span.
   */
  async probe(tenantId: string): Promise<{ collector: string; project: string }> {
    const settings = await this.settings(tenantId);
    const collector = settings.collectorUrl;
    if (!collector) throw new TelemetryProbeError('telemetry collector not configured');
    let outcome: ExportResult | undefined;
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({
        'service.name': settings.service,
        'openinference.project.name': settings.project,
        [TENANT_ATTRIBUTE]: tenantId,
      }),
      spanProcessors: [
        new SimpleSpanProcessor(
          new ReportingExporter(
            new OTLPTraceExporter({
              url: tracesUrl(collector),
              timeoutMillis: this.env.telemetryExportTimeoutMs,
            }),
            (result) => {
              outcome = result;
            },
          ),
        ),
      ],
    });
    try {
      provider
        .getTracer('tessera')
        .startSpan('telemetry.probe', { attributes: { [TENANT_ATTRIBUTE]: tenantId } }, context.active())
        .end();
      // A failed export rejects the flush; the exporter's report says why.
      await Promise.race([
        provider.forceFlush().catch(() => undefined),
        after(this.env.telemetryExportTimeoutMs + 500, undefined),
      ]);
    } finally {
      void provider.shutdown().catch(() => undefined);
    }
    if (!outcome) {
      throw new TelemetryProbeError(
        `telemetry collector at ${collector} did not answer within ${this.env.telemetryExportTimeoutMs} ms`,
      );
    }
    if (outcome.code !== ExportResultCode.SUCCESS) {
      throw new TelemetryProbeError(
        `telemetry collector at ${collector} refused the probe span: ${outcome.error?.message ?? 'export failed'}`,
      );
    }
    return { collector, project: settings.project };
  }
}

export class TelemetryProbeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TelemetryProbeError';
  }
}

function scopeOf(span: Span, level: TelemetryLevel): SpanScope {
  return {
    set: (attributes) => span.setAttributes(attributes),
    detail: (attributes) => {
      if (reaches(level, 'DETAILED')) span.setAttributes(attributes);
    },
    verbose: (attributes) => {
      if (reaches(level, 'VERBOSE')) span.setAttributes(attributes);
    },
    fail: (message) => span.setStatus({ code: SpanStatusCode.ERROR, message }),
    recording: true,
  };
}

let shared: Telemetry | undefined;

/** The process's telemetry (environment only until `useSources` gives it the configuration records). */
export function telemetry(): Telemetry {
  shared ??= new Telemetry();
  return shared;
}
