import { secretReferences, streamingUrl, streamingUrlVariable } from '@tessera/platform';
import { afterEach, describe, expect, it } from 'vitest';

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

describe('streamingUrl', () => {
  const route = '/events/ingestion/{job_id}';

  it('answers the path on the API where no function URL is configured (the local runtime)', () => {
    delete process.env[streamingUrlVariable(route)];
    expect(streamingUrl(route, { job_id: 'job-1' })).toBe('/events/ingestion/job-1');
  });

  it("answers the stream's function URL with the path when the stacks configured one", () => {
    process.env.TESSERA_STREAM_URL_EVENTS_INGESTION = 'https://abc123.lambda-url.us-east-1.on.aws/';
    expect(streamingUrl(route, { job_id: 'job 1/2' })).toBe(
      'https://abc123.lambda-url.us-east-1.on.aws/events/ingestion/job%201%2F2',
    );
  });

  it('refuses a route whose parameters are not all given', () => {
    expect(() => streamingUrl(route, {})).toThrow(/no value for \{job_id\}/);
  });
});

describe('secretReferences', () => {
  it('finds a Secrets Manager ARN or an SSM parameter for each variable that has one', () => {
    process.env.TESSERA_LLM_API_KEY_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:1:secret:llm';
    process.env.TESSERA_EMBEDDINGS_API_KEY_PARAMETER = '/tessera/embeddings';
    expect(secretReferences(['TESSERA_LLM_API_KEY', 'TESSERA_EMBEDDINGS_API_KEY', 'TESSERA_OTHER'])).toEqual([
      {
        variable: 'TESSERA_LLM_API_KEY',
        source: { secretArn: 'arn:aws:secretsmanager:us-east-1:1:secret:llm' },
      },
      { variable: 'TESSERA_EMBEDDINGS_API_KEY', source: { parameterName: '/tessera/embeddings' } },
    ]);
  });

  it('refuses both references for one variable', () => {
    process.env.TESSERA_LLM_API_KEY_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:1:secret:llm';
    process.env.TESSERA_LLM_API_KEY_PARAMETER = '/tessera/llm';
    expect(() => secretReferences(['TESSERA_LLM_API_KEY'])).toThrow(/not both/);
  });
});
