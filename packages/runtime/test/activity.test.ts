import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiActivity } from '../src/activity';
import { createApiServer, type LoadedRoute } from '../src/http-server';
import { installAwsLambdaGlobal, type ResponseStream } from '../src/lambda-shim';

installAwsLambdaGlobal();

/** Whether a promise has settled, after letting due timers run. */
async function settled(promise: Promise<unknown>, afterMs: number): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await sleep(afterMs);
  return done;
}

describe('ApiActivity', () => {
  it('is quiet at once when the API has had no request', async () => {
    const activity = new ApiActivity({ quietMs: 20, maxDeferMs: 60_000 });
    expect(await settled(activity.quiet(), 5)).toBe(true);
  });

  it('waits while a request is answered, then for the quiet time after it', async () => {
    const activity = new ApiActivity({ quietMs: 30, maxDeferMs: 60_000 });
    const end = activity.begin();
    const quiet = activity.quiet();
    expect(await settled(quiet, 100)).toBe(false);
    end();
    end(); // a second call counts nothing
    const endedAt = performance.now();
    await quiet;
    expect(performance.now() - endedAt).toBeGreaterThanOrEqual(25);
    // The second end() did not take the count below zero: a new request still holds the batch.
    const next = activity.begin();
    expect(await settled(activity.quiet(), 80)).toBe(false);
    next();
  });

  it('gives up waiting after maxDeferMs, so a busy API slows background work and never stops it', async () => {
    const activity = new ApiActivity({ quietMs: 20, maxDeferMs: 150 });
    const end = activity.begin();
    const started = performance.now();
    await activity.quiet();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    end();
  });

  it('stops waiting when its signal aborts', async () => {
    const activity = new ApiActivity({ quietMs: 20, maxDeferMs: 60_000 });
    const end = activity.begin();
    const controller = new AbortController();
    const quiet = activity.quiet(controller.signal);
    expect(await settled(quiet, 50)).toBe(false);
    controller.abort();
    expect(await settled(quiet, 5)).toBe(true);
    end();
  });
});

describe('createApiServer with an ApiActivity', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function serve(routes: LoadedRoute[], activity: ApiActivity): Promise<string> {
    const server = createApiServer(routes, async () => ({ statusCode: 404, body: '' }), activity);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('counts a request as busy until it is answered', async () => {
    let release: () => void = () => undefined;
    const slow: LoadedRoute['handler'] = () =>
      new Promise((resolve) => {
        release = () => resolve({ statusCode: 200, body: '{}' });
      });
    const activity = new ApiActivity({ quietMs: 10, maxDeferMs: 60_000 });
    const url = await serve(
      [{ method: 'GET', path: '/slow', handlerName: 'slow', handler: slow, timeoutSeconds: 30 }],
      activity,
    );
    const answer = fetch(`${url}/slow`);
    await sleep(50);
    const quiet = activity.quiet();
    expect(await settled(quiet, 100)).toBe(false);
    release();
    expect((await answer).status).toBe(200);
    await quiet;
  });

  it('does not count a streamed answer, which stays open, as busy', async () => {
    const { awslambda } = globalThis as unknown as {
      awslambda: {
        streamifyResponse(
          handler: (event: unknown, response: ResponseStream) => Promise<void>,
        ): LoadedRoute['handler'];
      };
    };
    let finish: () => void = () => undefined;
    const stream = awslambda.streamifyResponse(async (_event, response) => {
      response.write('data: open\n\n');
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      response.end();
    });
    const activity = new ApiActivity({ quietMs: 10, maxDeferMs: 60_000 });
    const url = await serve(
      [{ method: 'GET', path: '/events', handlerName: 'events', handler: stream, timeoutSeconds: 30 }],
      activity,
    );
    const response = await fetch(`${url}/events`);
    const reader = response.body!.getReader();
    await reader.read();
    expect(await settled(activity.quiet(), 100)).toBe(true);
    finish();
    await reader.cancel();
  });
});
