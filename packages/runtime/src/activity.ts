/**
 * The API's recent traffic, which the local queue pollers give way to. In AWS a queue's worker is a function
 * of its own, so a burst of API requests never shares a CPU with it; in the local runtime both run in one
 * process, and a batch of background work (filing completed runs, ingesting a file) taken in the middle of
 * a burst slows every answer of it. A poller therefore starts the batch it received once the API has
 * answered every request it was given and had no new one for `quietMs`, or after `maxDeferMs` whatever the
 * traffic: background work is slowed by a burst, never stopped by one. Streamed answers (SSE, chat streams)
 * count only as they arrive: they stay open for minutes.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface ActivityOptions {
  /** How long without a new request counts as quiet. */
  quietMs: number;
  /** The longest a batch waits for quiet. */
  maxDeferMs: number;
}

export const DEFAULT_ACTIVITY: ActivityOptions = { quietMs: 20, maxDeferMs: 1000 };

export class ApiActivity {
  private lastSeenAt = Number.NEGATIVE_INFINITY;
  private inFlight = 0;

  constructor(private readonly options: ActivityOptions = DEFAULT_ACTIVITY) {}

  /** A request arrived; the answer's end, when it is not streamed, calls what this returns. */
  begin(): () => void {
    this.lastSeenAt = performance.now();
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.lastSeenAt = performance.now();
    };
  }

  /** Resolves once the API is quiet, or after `maxDeferMs`, or when `signal` aborts. */
  async quiet(signal?: AbortSignal): Promise<void> {
    const deadline = performance.now() + this.options.maxDeferMs;
    while (!signal?.aborted) {
      const now = performance.now();
      const quietAt = this.inFlight > 0 ? now + this.options.quietMs : this.lastSeenAt + this.options.quietMs;
      if (now >= quietAt || now >= deadline) return;
      await sleep(Math.min(quietAt, deadline) - now, undefined, { signal }).catch(() => undefined);
    }
  }
}
