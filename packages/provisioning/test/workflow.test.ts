import { describe, expect, it } from 'vitest';
import { executionName, type ProvisioningDeps, STEPS, StepFailedError, workflowTenantId } from '../src/index';

describe('executionName', () => {
  it('is the same for the same tenant and input, whatever the order of its fields, and a Step Functions name', () => {
    const a = executionName('acme:prod', { tier: 'pro', storage_quota: 5, profiles: ['x', 'y'] });
    const b = executionName('acme:prod', { profiles: ['x', 'y'], storage_quota: 5, tier: 'pro' });
    expect(a).toBe(b);
    expect(a).toMatch(/^prov-acme_prod-[0-9a-f]{16}$/);
    expect(executionName('acme:prod', { tier: 'free' })).not.toBe(a);
    expect(executionName('acme:other', { tier: 'pro', storage_quota: 5, profiles: ['x', 'y'] })).not.toBe(a);
    const long = executionName(`${'o'.repeat(60)}:${'t'.repeat(60)}`, {});
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe('workflowTenantId', () => {
  it('takes 1 to 52 lower-case letters, digits and underscores, starting and ending with a letter or digit', () => {
    expect(workflowTenantId('acme:prod')).toBe('acme_prod');
    expect(workflowTenantId(`${'a'.repeat(25)}:${'b'.repeat(26)}`)).toHaveLength(52);
    for (const bad of ['Acme:prod', `${'a'.repeat(26)}:${'b'.repeat(26)}`, '_a:b', 'a:b_']) {
      expect(() => workflowTenantId(bad)).toThrow(
        new StepFailedError(`Invalid tenant id for provisioning: ${bad}`),
      );
    }
  });
});

describe('the notify step', () => {
  const chatsOf = (count: number) => {
    const queued: string[] = [];
    return {
      queued,
      chats: {
        count: async () => count,
        queue: async (tenantId: string, text: string) => {
          queued.push(`${tenantId}: ${text}`);
        },
      },
    };
  };

  it("queues its message for the tenant's linked chats when it has any", async () => {
    const { queued, chats } = chatsOf(2);
    const outcome = await STEPS.notify({
      deps: { chats } as unknown as ProvisioningDeps,
      tenantId: 'acme:prod',
      input: {},
    });
    expect(outcome).toEqual({ message: 'Tenant acme:prod provisioned', channel: 'messaging', chats: 2 });
    expect(queued).toEqual(['acme:prod: Tenant acme:prod provisioned']);
  });

  it('reports on the task only when no chat is linked', async () => {
    const { queued, chats } = chatsOf(0);
    const outcome = await STEPS.notify({
      deps: { chats } as unknown as ProvisioningDeps,
      tenantId: 'acme:prod',
      input: {},
    });
    expect(outcome).toEqual({ message: 'Tenant acme:prod provisioned', channel: 'task events' });
    expect(queued).toEqual([]);
  });
});
