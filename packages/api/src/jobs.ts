/**
 * Scheduled jobs (clarifications "Wiki, memories, instructions, jobs"): a query run through an agent on a
 * schedule, a workflow task each run, with post actions (save to the wiki, queue for the tenant's linked chats).
 * Schedules are 5-field crons or rates of at least a minute, refused when EventBridge Scheduler cannot run them.
 */
import { z } from 'zod';
import { route } from './contract';
import { outage, plain, tenantGuard } from './errors';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** The first name's number (months count from 1, days from 0). */
  nameBase?: number;
  /** `?` stands for "no value" (the day fields). */
  question?: boolean;
}

export const CRON_FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31, question: true },
  { name: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { name: 'day-of-week', min: 0, max: 7, names: DAYS, nameBase: 0, question: true },
];

/** The values a cron field selects (`*` and `?`: undefined, every value). Throws a message when malformed. */
export function cronFieldValues(field: FieldSpec, text: string): number[] | undefined {
  if (text === '*' || (field.question && text === '?')) return undefined;
  const value = (token: string): number => {
    const upper = token.toUpperCase();
    const named = field.names?.indexOf(upper) ?? -1;
    if (named >= 0) return named + (field.nameBase ?? 0);
    if (!/^\d{1,2}$/.test(token)) throw new Error(`${field.name} '${token}' is not a number or name`);
    const number = Number(token);
    if (number < field.min || number > field.max) {
      throw new Error(`${field.name} ${number} is outside ${field.min}-${field.max}`);
    }
    return number;
  };
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const [range, stepText, extra] = item.split('/');
    if (extra !== undefined || range === undefined || range === '') {
      throw new Error(`${field.name} '${item}' is malformed`);
    }
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d{1,2}$/.test(stepText) || Number(stepText) < 1) {
        throw new Error(`${field.name} step '${stepText}' must be a whole number of at least 1`);
      }
      step = Number(stepText);
    }
    let from: number;
    let to: number;
    if (range === '*') {
      from = field.min;
      to = field.max;
    } else if (range.includes('-')) {
      const [a, b, more] = range.split('-');
      if (more !== undefined || !a || !b) throw new Error(`${field.name} range '${range}' is malformed`);
      from = value(a);
      to = value(b);
      if (from > to) throw new Error(`${field.name} range '${range}' runs backwards`);
    } else {
      from = value(range);
      to = stepText === undefined ? from : field.max;
    }
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return [...values].sort((a, b) => a - b);
}

export type ParsedSchedule =
  | { kind: 'rate'; value: number; unit: 'minute' | 'hour' | 'day'; minutes: number }
  | { kind: 'cron'; fields: [string, string, string, string, string] };

const RATE = /^rate\((\d{1,7}) (minute|minutes|hour|hours|day|days)\)$/;

/**
 * A schedule as EventBridge Scheduler can run it: `rate(<n> minutes|hours|days)` with n ≥ 1, or a cron of
 * 5 fields (minute hour day-of-month month day-of-week) that does not set both day fields. Throws the reason
 * otherwise.
 */
export function parseSchedule(text: string): ParsedSchedule {
  const trimmed = text.trim();
  if (trimmed.startsWith('rate(')) {
    const match = RATE.exec(trimmed);
    if (!match) throw new Error(`'${trimmed}' is no rate: write rate(<n> minutes|hours|days)`);
    const value = Number(match[1]);
    if (value < 1) throw new Error('A rate must be at least one minute apart: rate(0 …) never runs');
    const unit = match[2]!.replace(/s$/, '') as 'minute' | 'hour' | 'day';
    return { kind: 'rate', value, unit, minutes: value * { minute: 1, hour: 60, day: 1440 }[unit] };
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length === 6 || fields.length === 7) {
    throw new Error(
      `A cron has 5 fields (minute hour day-of-month month day-of-week); '${trimmed}' has ${fields.length}: seconds (and years) are not supported, the shortest interval is one minute`,
    );
  }
  if (fields.length !== 5) {
    throw new Error(`'${trimmed}' is neither a 5-field cron nor rate(<n> minutes|hours|days)`);
  }
  CRON_FIELDS.forEach((field, i) => {
    cronFieldValues(field, fields[i]!);
  });
  const set = (f: string) => f !== '*' && f !== '?';
  if (set(fields[2]!) && set(fields[4]!)) {
    throw new Error(
      'A cron cannot set both day-of-month and day-of-week (EventBridge Scheduler cannot run it): set one and leave the other *',
    );
  }
  return { kind: 'cron', fields: fields as [string, string, string, string, string] };
}

/** The reason a schedule is refused, or undefined. */
export function scheduleProblem(text: string): string | undefined {
  try {
    parseSchedule(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Whether `zone` is an IANA time zone this runtime knows. */
function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const PostAction = z.strictObject({ type: z.enum(['wiki', 'messaging']) }).meta({
  id: 'JobPostAction',
  description:
    "`wiki`: the answer is saved to the tenant's wiki; `messaging`: it is queued for the tenant's linked chats.",
});
export type PostAction = z.infer<typeof PostAction>;

export const CreateJobRequest = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    schedule: z
      .string()
      .max(200)
      .superRefine((schedule, ctx) => {
        const problem = scheduleProblem(schedule);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .meta({
        description:
          'A 5-field cron (`0 9 * * MON-FRI`) or `rate(<n> minutes|hours|days)`, at least a minute apart; not both day fields.',
      }),
    query: z.string().trim().min(1).max(20_000),
    agent_name: z.string().min(1).max(100).default('gateway_agent'),
    post_actions: z.array(PostAction).max(10).default([]),
    timezone: z
      .string()
      .max(100)
      .refine(knownZone, { message: 'unknown time zone' })
      .default('UTC')
      .meta({ description: 'IANA time zone the cron reads in (default UTC).' }),
  })
  .meta({ id: 'CreateJobRequest' });
export type CreateJobRequest = z.output<typeof CreateJobRequest>;

export const RunState = z.enum(['running', 'completed', 'failed']);
export type RunState = z.infer<typeof RunState>;

export const Job = z
  .object({
    job_id: z.string(),
    tenant_id: z.string(),
    name: z.string(),
    schedule: z.string(),
    timezone: z.string(),
    query: z.string(),
    agent_name: z.string(),
    post_actions: z.array(PostAction),
    next_run: z.string().meta({ description: 'ISO 8601: when the job runs next.' }),
    created_at: z.string(),
    last_run: z
      .object({
        workflow_id: z.string(),
        state: RunState,
        scheduled_for: z.string(),
        started_at: z.string(),
        finished_at: z.string().nullable(),
        error: z.string().nullable(),
      })
      .nullable()
      .meta({ description: 'The latest run; its events stream at `/events/workflows/{workflow_id}`.' }),
    run_count: z.number().int(),
  })
  .meta({ id: 'Job' });
export type Job = z.infer<typeof Job>;

export const JobList = z
  .object({ jobs: z.array(Job), total_count: z.number().int() })
  .meta({ id: 'JobList' });

export const JobDeleted = z.object({ status: z.literal('deleted'), job_id: z.string() });

export const OutboundMessage = z
  .object({
    message_id: z.string(),
    tenant_id: z.string(),
    chat_id: z
      .string()
      .nullable()
      .meta({ description: 'null: for every chat linked to the tenant (the messaging drain fans it out).' }),
    text: z.string(),
    source: z.string().meta({ description: 'What queued it (`job:<job_id>`).' }),
    created_at: z.string(),
  })
  .meta({ id: 'OutboundMessage' });
export type OutboundMessage = z.infer<typeof OutboundMessage>;

export const OutboundList = z
  .object({ messages: z.array(OutboundMessage), count: z.number().int() })
  .meta({ id: 'OutboundList' });

const tenantPath = z.object({ tenant: z.string() });
const jobPath = z.object({ tenant: z.string(), job_id: z.string().min(1).max(100) });
const jobNotFound = plain("`Job '<job_id>' not found`, or `Tenant '<id>' not registered.`");

export const createJob = route({
  id: 'createJob',
  group: 'jobs',
  method: 'POST',
  route: '/admin/tenant/{tenant}/jobs',
  summary: 'Schedule a job: a query run through an agent',
  description:
    'In AWS the job is an EventBridge Scheduler schedule (created before the job is stored); locally the runtime fires it. Each run is a workflow task; runs of one job never overlap, and runs missed while nothing ran are not replayed.',
  path: tenantPath,
  body: CreateJobRequest,
  responses: { 201: { description: 'The job.', schema: Job } },
  errors: {
    ...tenantGuard,
    404: plain("`Agent '<name>' not found`, or `Tenant '<id>' not registered.`"),
    503: outage,
  },
});

export const listJobs = route({
  id: 'listJobs',
  group: 'jobs',
  method: 'GET',
  route: '/admin/tenant/{tenant}/jobs',
  summary: "The tenant's jobs",
  path: tenantPath,
  responses: { 200: { description: 'The jobs, oldest first.', schema: JobList } },
  errors: { ...tenantGuard, 503: outage },
});

export const getJob = route({
  id: 'getJob',
  group: 'jobs',
  method: 'GET',
  route: '/admin/tenant/{tenant}/jobs/{job_id}',
  summary: 'A job with its latest run',
  path: jobPath,
  responses: { 200: { description: 'The job.', schema: Job } },
  errors: { ...tenantGuard, 404: jobNotFound, 503: outage },
});

export const deleteJob = route({
  id: 'deleteJob',
  group: 'jobs',
  method: 'DELETE',
  route: '/admin/tenant/{tenant}/jobs/{job_id}',
  summary: 'Delete a job and its schedule',
  path: jobPath,
  responses: { 200: { description: 'Deleted.', schema: JobDeleted } },
  errors: { ...tenantGuard, 404: jobNotFound, 503: outage },
});

export const listOutbound = route({
  id: 'listOutbound',
  group: 'jobs',
  method: 'GET',
  route: '/admin/tenant/{tenant}/outbound',
  summary: "Messages queued for the tenant's linked chats (job answers with a messaging post action)",
  path: tenantPath,
  responses: { 200: { description: 'Oldest first.', schema: OutboundList } },
  errors: { ...tenantGuard, 503: outage },
});
