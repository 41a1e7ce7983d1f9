/**
 * Whether the runtime answers, as every call sees it: a failed call marks it down at once. A probe of
 * `/health` runs every few seconds while it is down, so the banner clears by itself when it returns, and
 * now and then while it is up, so an outage shows even when nobody clicks.
 */
import { useSyncExternalStore } from 'react';

export type RuntimeState = 'unknown' | 'up' | 'down';

let state: RuntimeState = 'unknown';
/** Times the runtime came back after being down: data loads depend on it to retry what failed. */
let recoveries = 0;
const listeners = new Set<() => void>();
let probeTimer: ReturnType<typeof setTimeout> | undefined;
let probe: (() => Promise<boolean>) | undefined;

export const DOWN_RETRY_MS = 3000;
/** While the runtime answers, it is still checked now and then, so an outage shows without a user action. */
export const UP_CHECK_MS = 15_000;

function set(next: RuntimeState): void {
  if (next === state) return;
  if (state === 'down' && next === 'up') recoveries++;
  state = next;
  for (const listener of listeners) listener();
  if (next === 'down') {
    // Retry soon rather than at the slow pace of an answering runtime.
    if (probeTimer) clearTimeout(probeTimer);
    probeTimer = undefined;
    scheduleProbe();
  }
}

function scheduleProbe(): void {
  if (probeTimer || !probe) return;
  probeTimer = setTimeout(
    async () => {
      probeTimer = undefined;
      const answered = await probe!().catch(() => false);
      set(answered ? 'up' : 'down');
      scheduleProbe();
    },
    state === 'down' ? DOWN_RETRY_MS : UP_CHECK_MS,
  );
}

/** Called by the API layer after every call: `true` when the runtime answered, `false` when it did not. */
export function reportRuntime(answered: boolean): void {
  set(answered ? 'up' : 'down');
}

/** Sets the probe the store retries while the runtime is down, and runs it once now. */
export function startRuntimeProbe(check: () => Promise<boolean>): void {
  probe = check;
  check().then(
    (answered) => {
      set(answered ? 'up' : 'down');
      scheduleProbe();
    },
    () => set('down'),
  );
}

export function useRuntimeState(): RuntimeState {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
  );
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useRecoveries(): number {
  return useSyncExternalStore(subscribe, () => recoveries);
}
