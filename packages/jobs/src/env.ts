/** Settings of the scheduled jobs. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const env = parseEnv(
  'jobs',
  z.object({
    /**
     * EventBridge Scheduler: the schedule group (set: one schedule a job there), the function a schedule
     * invokes (the job-run function) and the role it invokes it with; set by the stacks. No group: the
     * runtime's ticker fires jobs from the store.
     */
    TESSERA_JOB_SCHEDULE_GROUP: z.string().min(1).optional(),
    TESSERA_JOB_RUN_FUNCTION_ARN: z.string().min(1).optional(),
    TESSERA_JOB_SCHEDULER_ROLE_ARN: z.string().min(1).optional(),
    /** How long a run holds its job (no other run of it starts meanwhile) unless it ends first. */
    TESSERA_JOB_LEASE_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  }),
);

export const jobsEnv = {
  scheduleGroup: env.jobScheduleGroup,
  runFunctionArn: env.jobRunFunctionArn,
  schedulerRoleArn: env.jobSchedulerRoleArn,
  leaseMs: env.jobLeaseSeconds * 1000,
};
