import { describe, expect, it } from 'vitest';
import { isForwarded } from '../src/allowlist';

describe('isForwarded', () => {
  it.each([
    ['GET', '/health'],
    ['GET', '/admin/organizations'],
    ['GET', '/admin/organizations/acme/tenants'],
    ['GET', '/admin/tenants/acme:prod'],
    ['GET', '/admin/tenants/acme%3Aprod'],
    ['GET', '/search/profiles'],
    ['POST', '/search/'],
    ['POST', '/search'],
    ['GET', '/graph/stats'],
    ['GET', '/graph/neighbors'],
    ['GET', '/graph/path'],
    ['POST', '/ingestion/upload'],
    ['POST', '/ingestion/uploads'],
    ['GET', '/ingestion/ingest_1/events'],
    ['GET', '/events/ingestion/ingest_1'],
    ['GET', '/events/workflows/workflow_1'],
    ['GET', '/events/queues'],
    ['GET', '/events/queues/t1/offset'],
    ['POST', '/events/ingestion/ingest_1/cancel'],
    ['POST', '/events/workflows/w1/cancel'],
    ['GET', '/wiki/index'],
    ['GET', '/wiki/topic/marie_curie'],
    ['POST', '/wiki/search'],
    ['POST', '/wiki/save'],
    ['GET', '/conversations'],
    ['GET', '/conversations/ctx_1'],
  ])('forwards %s %s', (method, path) => {
    expect(isForwarded(method, path)).toBe(true);
  });

  it.each([
    // Routes of the runtime outside the list.
    ['POST', '/admin/organizations'],
    ['POST', '/admin/tenants'],
    ['DELETE', '/admin/tenants/acme:prod'],
    ['GET', '/admin/organizations/acme'],
    ['PUT', '/admin/tenants/acme:prod/tier'],
    ['GET', '/admin/tenants/acme:prod/tier'],
    ['POST', '/admin/reconcile-orphans'],
    ['GET', '/admin/schemas/drift'],
    ['POST', '/admin/harness/keys'],
    ['POST', '/graph/upsert'],
    ['POST', '/ingestion/start'],
    ['GET', '/ingestion/upload'],
    ['POST', '/events/ingestion/ingest_1'],
    ['DELETE', '/wiki/topic/x'],
    ['DELETE', '/conversations/ctx_1'],
    ['POST', '/conversations'],
    ['GET', '/agents'],
    ['POST', '/agents/search_agent/process'],
    ['POST', '/ag-ui/search_agent'],
    ['POST', '/v1/chat/completions'],
    ['GET', '/openapi.json'],
    ['GET', '/'],
    ['GET', ''],
    ['HEAD', '/health'],
    ['OPTIONS', '/search/'],
    // Spellings that would reach another route through normalisation or a decoded slash.
    ['GET', '/graph/../admin/schemas/drift'],
    ['GET', '/graph/%2e%2e/admin/schemas/drift'],
    ['GET', '/graph/./stats'],
    ['GET', '/graph//stats'],
    ['GET', '/graph/stats%2F..%2F..%2Fadmin'],
    ['GET', '/events/%5C..'],
    ['GET', '/graph/%E0%A4%A'],
    ['GET', '/graph'],
    ['GET', '/healthz'],
    ['GET', '/search/profiles/'],
    ['GET', '/conversationsx'],
    ['GET', '/wiki'],
  ])('refuses %s %s', (method, path) => {
    expect(isForwarded(method, path)).toBe(false);
  });
});
