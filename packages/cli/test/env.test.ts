import { describe, expect, it } from 'vitest';
import { parseCliEnv } from '../src/index';

describe('parseCliEnv', () => {
  it('defaults the runtime URL and leaves the tenant unset', () => {
    expect(parseCliEnv({})).toEqual({ runtimeUrl: 'http://localhost:28000' });
  });

  it('treats empty variables as unset', () => {
    expect(parseCliEnv({ TESSERA_RUNTIME_URL: '', TESSERA_TENANT_ID: '' })).toEqual({
      runtimeUrl: 'http://localhost:28000',
    });
  });

  it('reads the tenant and the runtime URL', () => {
    expect(
      parseCliEnv({ TESSERA_RUNTIME_URL: 'http://10.0.0.5:28000', TESSERA_TENANT_ID: 'acme:prod' }),
    ).toEqual({
      runtimeUrl: 'http://10.0.0.5:28000',
      tenantId: 'acme:prod',
    });
  });

  it('fails with the variable named when the runtime URL is not a URL', () => {
    expect(() => parseCliEnv({ TESSERA_RUNTIME_URL: 'nowhere' })).toThrow(
      /^Invalid CLI settings: TESSERA_RUNTIME_URL: /,
    );
  });
});
