/** Runs scheduled handlers locally, as EventBridge rules do in AWS. */
import { log } from '@tessera/core';

export interface LoadedSchedule {
  name: string;
  rateMinutes: number;
  atStartup: boolean;
  run: () => Promise<unknown>;
}

export function startScheduler(schedules: LoadedSchedule[], options: { periodic: boolean }): () => void {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<string>();
  const fire = (schedule: LoadedSchedule) => {
    if (running.has(schedule.name)) return;
    running.add(schedule.name);
    schedule
      .run()
      .catch((error: unknown) => log.error('scheduled job failed', { schedule: schedule.name, error }))
      .finally(() => running.delete(schedule.name));
  };
  for (const schedule of schedules) {
    if (schedule.atStartup) fire(schedule);
    if (options.periodic)
      timers.push(setInterval(() => fire(schedule), schedule.rateMinutes * 60_000).unref());
  }
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
