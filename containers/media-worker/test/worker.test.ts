import { describe, expect, it } from 'vitest';
import { jobArgument, parseMediaWorkerEnv } from '../src';

describe('jobArgument', () => {
  it('reads the job of --job, and none without it', () => {
    expect(jobArgument(['--job', 'ingest_0123456789abcdef'])).toBe('ingest_0123456789abcdef');
    expect(jobArgument([])).toBeUndefined();
  });

  it('refuses --job without an id', () => {
    expect(() => jobArgument(['--job'])).toThrow('--job needs a job id');
    expect(() => jobArgument(['--job', '--verbose'])).toThrow('--job needs a job id');
  });
});

describe('media worker settings', () => {
  it('defaults to a 20-second long poll and 15 minutes of visibility', () => {
    expect(parseMediaWorkerEnv({})).toEqual({ mediaWaitSeconds: 20, mediaVisibilitySeconds: 900 });
  });

  it('refuses a queue URL that is not one', () => {
    expect(() => parseMediaWorkerEnv({ TESSERA_MEDIA_QUEUE_URL: 'ingestion' })).toThrow(
      /Invalid media worker settings: TESSERA_MEDIA_QUEUE_URL/,
    );
  });
});
