import { describe, expect, it } from 'vitest';
import { defaultClientDir, readWebEnv } from '../src/env';

describe('readWebEnv', () => {
  it('takes the defaults of clarifications: port 4000 on 127.0.0.1, the runtime on 28000, keys for an hour', () => {
    expect(readWebEnv({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      runtimeUrl: 'http://localhost:28000',
      runtimeStreamUrls: {},
      webHarnessKeyTtlS: 3600,
      webClientDir: defaultClientDir,
    });
  });

  it('reads each variable', () => {
    const env = readWebEnv({
      PORT: '8080',
      HOST: '0.0.0.0',
      TESSERA_RUNTIME_URL: 'https://example.test/api',
      TESSERA_WEB_HARNESS_KEY_TTL_S: '604800',
    });
    expect(env).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      runtimeUrl: 'https://example.test/api',
      webHarnessKeyTtlS: 604800,
    });
  });

  it.each([
    ['TESSERA_WEB_HARNESS_KEY_TTL_S', '0'],
    ['TESSERA_WEB_HARNESS_KEY_TTL_S', '604801'],
    ['TESSERA_WEB_HARNESS_KEY_TTL_S', 'soon'],
    ['PORT', '70000'],
    ['TESSERA_RUNTIME_URL', 'localhost'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => readWebEnv({ [name]: value })).toThrow(new RegExp(`Invalid web server settings: ${name}`));
  });
});
