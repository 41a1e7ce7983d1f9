import { describe, expect, it } from 'vitest';
import { readWebEnv } from '../src/env';
import { runtimeTarget } from '../src/targets';

describe('runtime targets', () => {
  const target = runtimeTarget('https://api.example/prod/', {
    'POST /ag-ui/{agent}': 'https://agui.lambda-url.example/',
    'GET /events/ingestion/{job_id}': 'https://events.lambda-url.example',
  });

  it("sends a route served apart to its own URL, and every other to the runtime's", () => {
    expect(target('POST', '/ag-ui/search_agent')).toBe('https://agui.lambda-url.example');
    expect(target('GET', '/events/ingestion/ingest_1?from_offset=3')).toBe(
      'https://events.lambda-url.example',
    );
    expect(target('GET', '/ag-ui/search_agent')).toBe('https://api.example/prod');
    expect(target('POST', '/ag-ui/search_agent/more')).toBe('https://api.example/prod');
    expect(target('GET', '/events/ingestion')).toBe('https://api.example/prod');
    expect(target('GET', '/search/profiles')).toBe('https://api.example/prod');
  });

  it('reads TESSERA_RUNTIME_STREAM_URLS as JSON, and names it when it is not', () => {
    expect(readWebEnv({}).runtimeStreamUrls).toEqual({});
    const urls = { 'POST /ag-ui/{agent}': 'https://agui.example' };
    expect(readWebEnv({ TESSERA_RUNTIME_STREAM_URLS: JSON.stringify(urls) }).runtimeStreamUrls).toEqual(urls);
    for (const bad of ['[', '{"/ag-ui": "https://x"}', '{"POST /ag-ui": "not a url"}']) {
      expect(() => readWebEnv({ TESSERA_RUNTIME_STREAM_URLS: bad })).toThrow(/TESSERA_RUNTIME_STREAM_URLS/);
    }
  });
});
