import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError, connect, parseCliEnv, RuntimeClient, runGraphStats } from '../src/index';
import { captureOutput, closedPortUrl, type FakeRuntime, failure, startFakeRuntime } from './support';

const noEnv = parseCliEnv({});

let runtime: FakeRuntime;
beforeEach(async () => {
  runtime = await startFakeRuntime();
});
afterEach(async () => {
  await runtime.close();
});

async function statsFailure(url = runtime.url): Promise<Error> {
  return failure(runGraphStats({ url, tenant: 'acme' }, captureOutput().output, noEnv));
}

describe('RuntimeClient (integration: fake runtime)', () => {
  it('says the runtime cannot be reached at a closed port and how to start it', async () => {
    const url = await closedPortUrl();
    const error = await statsFailure(url);
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe(
      `Cannot reach the Tessera runtime at ${url}: connect ECONNREFUSED ${url.slice('http://'.length)}. ` +
        "Start it with 'npm start' or pass --url.",
    );
  });

  it('joins the loc: msg entries of a 422 body into one line', async () => {
    runtime.override = () => ({
      status: 422,
      json: {
        detail: [
          {
            type: 'less_than_equal',
            loc: ['query', 'top_k'],
            msg: 'Input should be less than or equal to 100',
          },
          { type: 'missing', loc: ['query', 'q'], msg: 'Field required', input: null },
        ],
      },
    });
    const error = await statsFailure();
    expect(error.message).toBe(
      'query.top_k: Input should be less than or equal to 100; query.q: Field required (HTTP 422)',
    );
  });

  it('reports detail.message of a structured error body', async () => {
    runtime.override = () => ({
      status: 503,
      json: { detail: { error: 'search_unavailable', message: 'The search backend did not answer; retry.' } },
    });
    expect((await statsFailure()).message).toBe('The search backend did not answer; retry. (HTTP 503)');
  });

  it('keeps a multi-line detail on one line', async () => {
    runtime.override = () => ({
      status: 400,
      json: { detail: 'Invalid tenant_id format: a:b:c.\nExpected one colon' },
    });
    expect((await statsFailure()).message).toBe(
      'Invalid tenant_id format: a:b:c. Expected one colon (HTTP 400)',
    );
  });

  it('reports the text of an error answer that is not JSON', async () => {
    runtime.override = () => ({ status: 502, text: 'Bad Gateway' });
    expect((await statsFailure()).message).toBe('Bad Gateway (HTTP 502)');
  });

  it('rejects a 2xx answer that is not JSON', async () => {
    runtime.override = () => ({ status: 200, text: '<html>proxy</html>' });
    expect((await statsFailure()).message).toBe(
      `The Tessera runtime at ${runtime.url} answered /graph/stats with a body that is not JSON.`,
    );
  });

  it('rejects a 2xx answer of another shape instead of printing part of it', async () => {
    runtime.override = () => ({
      status: 200,
      json: { tenant_id: 'acme:acme', edge_count: 1, top_nodes: [] },
    });
    const { output, stdout } = captureOutput();
    const error = await failure(runGraphStats({ url: runtime.url, tenant: 'acme' }, output, noEnv));
    expect(error.message).toMatch(/^Unexpected answer from \/graph\/stats: node_count: /);
    expect(stdout).toEqual([]);
  });

  it('gives up on a runtime that does not answer', async () => {
    runtime.override = () => 'hang';
    const client = new RuntimeClient({ baseUrl: runtime.url, timeoutMs: 200 });
    const error = await failure(client.get('/graph/stats', { tenant_id: 'acme' }));
    expect(error.message).toBe(`The Tessera runtime at ${runtime.url} did not answer within 0.2 s.`);
  });

  it('accepts a base URL with a trailing slash', async () => {
    await runGraphStats({ url: `${runtime.url}/`, tenant: 'acme' }, captureOutput().output, noEnv);
    expect(runtime.requests[0]?.path).toBe('/graph/stats');
  });
});

describe('connect', () => {
  it('uses http://localhost:28000 when neither --url nor TESSERA_RUNTIME_URL is set', () => {
    expect(connect({ tenant: 'acme' }, noEnv).client.baseUrl).toBe('http://localhost:28000');
  });

  it.each(['localhost:28000', 'not a url', 'ftp://example.com'])('rejects --url %j', (url) => {
    expect(() => connect({ url, tenant: 'acme' }, noEnv)).toThrow(
      new CliError(`Invalid --url '${url}': expected an http(s) URL such as http://localhost:28000.`),
    );
  });
});
