/** Runs scheduled handlers locally, as EventBridge rules do in AWS. */
import { log } from '@tessera/core';

export interface LoadedSchedule {
  name: string;
  rateMinutes: number;
  atStartup: boolean;
  run: () => Promise<unknown>;
}

const report = (schedule: LoadedSchedule) => (error: unknown) =>
  log.error('scheduled job failed', { schedule: schedule.name, error });

/**
 * The start-up runs of the schedules that ask for one, to completion: the runtime answers requests only
 * once interrupted work of its last run (a tenant create cut short, say) has been settled.
 */
export async function runStartupJobs(schedules: LoadedSchedule[]): Promise<void> {
  await Promise.all(schedules.filter((s) => s.atStartup).map((s) => s.run().catch(report(s))));
}

/**
 * Fires each schedule at its rate; a run still going when the next is due is not started twice. The stop
 * function fires nothing more and resolves once the runs under way have ended (the stores they use close
 * after them).
 */
export function startScheduler(schedules: LoadedSchedule[]): () => Promise<void> {
  const timers: NodeJS.Timeout[] = [];
  const running = new Map<string, Promise<unknown>>();
  const fire = (schedule: LoadedSchedule) => {
    if (running.has(schedule.name)) return;
    running.set(
      schedule.name,
      schedule
        .run()
        .catch(report(schedule))
        .finally(() => running.delete(schedule.name)),
    );
  };
  for (const schedule of schedules) {
    timers.push(setInterval(() => fire(schedule), schedule.rateMinutes * 60_000).unref());
  }
  return async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.allSettled(running.values());
  };
}

export interface LoadedTicker {
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
}

/**
 * Runs each ticker every `everyMs` (the job scheduler, which fires due jobs in place of EventBridge Scheduler);
 * a tick still going when the next is due is not started twice. The stop function resolves once the ticks
 * under way have ended: a tick's store call must not outlive the emulators (a scan of a closed database
 * crashed the process at stop).
 */
export function startTickers(tickers: LoadedTicker[]): () => Promise<void> {
  const timers: NodeJS.Timeout[] = [];
  const running = new Map<string, Promise<unknown>>();
  for (const ticker of tickers) {
    const tick = () => {
      if (running.has(ticker.name)) return;
      running.set(
        ticker.name,
        ticker
          .run()
          .catch((error: unknown) => log.error('local ticker failed', { ticker: ticker.name, error }))
          .finally(() => running.delete(ticker.name)),
      );
    };
    timers.push(setInterval(tick, ticker.everyMs).unref());
  }
  return async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.allSettled(running.values());
  };
}
