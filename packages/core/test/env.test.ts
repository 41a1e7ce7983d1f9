import { parseEnv, settingKey } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const schema = z.object({
  TESSERA_QUEUE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(900),
  TESSERA_POOLING_URL: z.url().optional(),
  TESSERA_STAGE: z
    .string()
    .regex(/^[a-z]+$/)
    .default('local'),
  AWS_REGION: z.string().min(1).default('us-east-1'),
});

describe('settingKey', () => {
  it('drops the TESSERA_ prefix and camel-cases the rest', () => {
    expect(settingKey('TESSERA_QUEUE_TIMEOUT_SECONDS')).toBe('queueTimeoutSeconds');
    expect(settingKey('TESSERA_S3_BUCKET')).toBe('s3Bucket');
    expect(settingKey('AWS_ENDPOINT_URL')).toBe('awsEndpointUrl');
    expect(settingKey('TESSERA_PORT')).toBe('port');
  });
});

describe('parseEnv', () => {
  it('answers every variable under its camelCase key, defaults applied, unset optionals absent', () => {
    expect(parseEnv('test', schema, {})).toEqual({
      queueTimeoutSeconds: 900,
      stage: 'local',
      awsRegion: 'us-east-1',
    });
  });

  it('reads and coerces set variables, ignoring those the schema does not name', () => {
    expect(
      parseEnv('test', schema, {
        TESSERA_QUEUE_TIMEOUT_SECONDS: '60',
        TESSERA_POOLING_URL: 'http://127.0.0.1:8000',
        AWS_REGION: 'eu-west-1',
        PATH: '/usr/bin',
      }),
    ).toEqual({
      queueTimeoutSeconds: 60,
      poolingUrl: 'http://127.0.0.1:8000',
      stage: 'local',
      awsRegion: 'eu-west-1',
    });
  });

  it('treats an empty variable as unset, so it takes its default', () => {
    expect(
      parseEnv('test', schema, {
        TESSERA_QUEUE_TIMEOUT_SECONDS: '',
        TESSERA_POOLING_URL: '',
        TESSERA_STAGE: '',
        AWS_REGION: '',
      }),
    ).toEqual({ queueTimeoutSeconds: 900, stage: 'local', awsRegion: 'us-east-1' });
  });

  it('throws naming every bad variable and the settings it belongs to', () => {
    expect(() =>
      parseEnv('test', schema, { TESSERA_QUEUE_TIMEOUT_SECONDS: '0', TESSERA_STAGE: 'Prod' }),
    ).toThrow(/^Invalid test settings: TESSERA_QUEUE_TIMEOUT_SECONDS: .+; TESSERA_STAGE: .+$/);
    expect(() => parseEnv('test', schema, { TESSERA_POOLING_URL: 'not a url' })).toThrow(
      /^Invalid test settings: TESSERA_POOLING_URL: /,
    );
  });

  it('reads process.env when given no source', () => {
    const variables = z.object({ TESSERA_PARSE_ENV_PROBE: z.string().default('unset') });
    expect(parseEnv('test', variables)).toEqual({ parseEnvProbe: 'unset' });
    process.env.TESSERA_PARSE_ENV_PROBE = 'set';
    try {
      expect(parseEnv('test', variables)).toEqual({ parseEnvProbe: 'set' });
    } finally {
      delete process.env.TESSERA_PARSE_ENV_PROBE;
    }
  });
});
