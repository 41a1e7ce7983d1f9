/**
 * Whether the runtime answers, as every call sees it: a failed call marks it down at once, and while it is
 * down a probe of `/health` runs every few seconds until it answers, so the banner clears by itself.
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

function set(next: RuntimeState): void {
  if (next === state) return;
  if (state === 'down' && next === 'up') recoveries++;
  state = next;
  for (const listener of listeners) listener();
  if (next === 'down') scheduleProbe();
}

function scheduleProbe(): void {
  if (probeTimer || !probe) return;
  probeTimer = setTimeout(async () => {
    probeTimer = undefined;
    const answered = await probe!().catch(() => false);
    if (answered) set('up');
    else scheduleProbe();
  }, DOWN_RETRY_MS);
}

/** Called by the API layer after every call: `true` when the runtime answered, `false` when it did not. */
export function reportRuntime(answered: boolean): void {
  set(answered ? 'up' : 'down');
}

/** Sets the probe the store retries while the runtime is down, and runs it once now. */
export function startRuntimeProbe(check: () => Promise<boolean>): void {
  probe = check;
  check().then(
    (answered) => set(answered ? 'up' : 'down'),
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
