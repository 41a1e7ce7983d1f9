/** The production registry of stores holding tenant data, which every tenant removal runs. */
import { describe, expect, it } from 'vitest';
import { tenantAdmin } from '../tenant-data';

describe('tenantAdmin', () => {
  it('registers every store holding tenant data, ingestion before the task events it settles', () => {
    expect(tenantAdmin().owners?.names).toEqual([
      'ingestion jobs, sources and uploads',
      'task events',
      'profiles',
      'config-records',
      'provisioning',
      'agent-memories',
      'instructions',
      'wiki pages',
      'scheduled jobs and outbound messages',
      'conversations',
      'harness keys',
      'messaging invites and linked chats',
    ]);
    // One registry a process: every removal sees the same owners.
    expect(tenantAdmin()).toBe(tenantAdmin());
  });
});
