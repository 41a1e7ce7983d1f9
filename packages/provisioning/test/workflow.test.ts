import { describe, expect, it } from 'vitest';
import { executionName, StepFailedError, workflowTenantId } from '../src/index';

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
