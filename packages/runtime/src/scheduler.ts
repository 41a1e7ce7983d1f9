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

/** Fires each schedule at its rate; a run still going when the next is due is not started twice. */
export function startScheduler(schedules: LoadedSchedule[]): () => void {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<string>();
  const fire = (schedule: LoadedSchedule) => {
    if (running.has(schedule.name)) return;
    running.add(schedule.name);
    schedule
      .run()
      .catch(report(schedule))
      .finally(() => running.delete(schedule.name));
  };
  for (const schedule of schedules) {
    timers.push(setInterval(() => fire(schedule), schedule.rateMinutes * 60_000).unref());
  }
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}

export interface LoadedTicker {
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
}

/**
 * Runs each ticker every `everyMs` (the job scheduler, which fires due jobs in place of EventBridge Scheduler);
 * a tick still going when the next is due is not started twice.
 */
export function startTickers(tickers: LoadedTicker[]): () => void {
  const timers: NodeJS.Timeout[] = [];
  for (const ticker of tickers) {
    let running = false;
    const tick = () => {
      if (running) return;
      running = true;
      ticker
        .run()
        .catch((error: unknown) => log.error('local ticker failed', { ticker: ticker.name, error }))
        .finally(() => {
          running = false;
        });
    };
    timers.push(setInterval(tick, ticker.everyMs).unref());
  }
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
