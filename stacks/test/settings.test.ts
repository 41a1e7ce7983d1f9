import { deploySettings } from '@tessera/stacks';
import { describe, expect, it } from 'vitest';

describe('deploySettings', () => {
  it('passes on the endpoint settings and turns key references into secret sources', () => {
    expect(
      deploySettings({
        PATH: '/usr/bin',
        TESSERA_LLM_BASE_URL: 'https://llm.example/v1',
        TESSERA_LLM_MODEL: 'qwen3',
        TESSERA_POOLING_URL: 'http://pooling.internal:8000',
        TESSERA_LLM_API_KEY_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:llm-a1b2c3',
        TESSERA_EMBEDDINGS_API_KEY_PARAMETER: '/tessera/prod/embeddings-key',
        TESSERA_DATA_DIR: '/not/a/deploy/setting',
      }),
    ).toEqual({
      environment: {
        TESSERA_LLM_BASE_URL: 'https://llm.example/v1',
        TESSERA_LLM_MODEL: 'qwen3',
        TESSERA_POOLING_URL: 'http://pooling.internal:8000',
      },
      secrets: {
        TESSERA_LLM_API_KEY: { secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:llm-a1b2c3' },
        TESSERA_EMBEDDINGS_API_KEY: { parameterName: '/tessera/prod/embeddings-key' },
      },
    });
  });

  it('answers no settings from an environment without any', () => {
    expect(deploySettings({})).toEqual({ environment: {}, secrets: {} });
  });

  it('refuses a key in the deploying environment, saying where it belongs', () => {
    expect(() => deploySettings({ TESSERA_LLM_API_KEY: 'sk-live' })).toThrow(
      /TESSERA_LLM_API_KEY is a key: keep it in Secrets Manager or SSM Parameter Store/,
    );
  });

  it('refuses a secret reference that is no Secrets Manager ARN, and both references for one key', () => {
    expect(() => deploySettings({ TESSERA_LLM_API_KEY_SECRET_ARN: 'llm-key' })).toThrow(
      /TESSERA_LLM_API_KEY_SECRET_ARN: a Secrets Manager ARN/,
    );
    expect(() =>
      deploySettings({
        TESSERA_LLM_API_KEY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:1:secret:x',
        TESSERA_LLM_API_KEY_PARAMETER: '/x',
      }),
    ).toThrow(/not both/);
  });
});
