/**
 * Schedules: the API's parse (5-field cron or rate, refusals included), the next slot after a time, and the
 * EventBridge Scheduler expression of a schedule (6 fields with a year, `?` in the day field left open,
 * day-of-week as names, since EventBridge counts days 1-7 from Sunday and has no steps there).
 */
import { Jobs } from '@tessera/api';
import { CronExpressionParser } from 'cron-parser';

const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

export type ParsedSchedule = Jobs.ParsedSchedule;
export const parseSchedule = Jobs.parseSchedule;

const open = (field: string) => field === '*' || field === '?';

/** The EventBridge Scheduler expression of a valid schedule. */
export function eventBridgeExpression(schedule: string): string {
  const parsed = parseSchedule(schedule);
  if (parsed.kind === 'rate') {
    return `rate(${parsed.value} ${parsed.unit}${parsed.value === 1 ? '' : 's'})`;
  }
  const [minute, hour, dom, month, dow] = parsed.fields;
  let dayOfMonth = dom;
  let dayOfWeek: string;
  if (open(dow)) {
    // EventBridge wants exactly one day field to be `?`.
    dayOfMonth = open(dom) ? '*' : dom;
    dayOfWeek = '?';
  } else {
    dayOfMonth = '?';
    const days = Jobs.cronFieldValues(Jobs.CRON_FIELDS[4]!, dow) ?? [];
    dayOfWeek = [...new Set(days.map((day) => day % 7))]
      .sort((a, b) => a - b)
      .map((day) => DAY_NAMES[day])
      .join(',');
  }
  return `cron(${minute} ${hour} ${dayOfMonth} ${month} ${dayOfWeek} *)`;
}

/**
 * The first slot of a schedule after `after` (epoch ms). A rate counts from `anchor` (the job's creation), as
 * an EventBridge rate schedule counts from its creation; a cron reads in `timezone`.
 */
export function nextSlot(schedule: string, timezone: string, anchor: number, after: number): number {
  const parsed = parseSchedule(schedule);
  if (parsed.kind === 'rate') {
    const every = parsed.minutes * 60_000;
    const steps = Math.max(1, Math.floor((after - anchor) / every) + 1);
    return anchor + steps * every;
  }
  const cron = CronExpressionParser.parse(parsed.fields.join(' ').replaceAll('?', '*'), {
    currentDate: new Date(after),
    tz: timezone,
  });
  return cron.next().toDate().getTime();
}
