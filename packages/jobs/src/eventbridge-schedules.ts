/**
 * EventBridge Scheduler adapter: one schedule a job in the deployment's schedule group, named by the job id,
 * invoking the job-run function with `{tenant_id, job_id, scheduled_for}` through the scheduler's role. A
 * schedule has no retries (a failed run is the run's ErrorEvent; the next slot runs anyway) and no flexible
 * window, so it fires on its slot.
 */
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { eventBridgeExpression } from './schedule';
import type { JobSchedules, StoredJob } from './store';

export interface EventBridgeTarget {
  group: string;
  /** The job-run function and the role schedules invoke it with; needed to create schedules, not to remove them. */
  functionArn?: string;
  roleArn?: string;
}

export class EventBridgeJobSchedules implements JobSchedules {
  constructor(
    private readonly target: EventBridgeTarget,
    private readonly client: SchedulerClient = new SchedulerClient({}),
  ) {}

  async create(job: StoredJob): Promise<void> {
    const { functionArn, roleArn } = this.target;
    if (!functionArn || !roleArn) {
      throw new Error('Job schedules need TESSERA_JOB_RUN_FUNCTION_ARN and TESSERA_JOB_SCHEDULER_ROLE_ARN');
    }
    try {
      await this.client.send(
        new CreateScheduleCommand({
          Name: job.job_id,
          GroupName: this.target.group,
          ScheduleExpression: eventBridgeExpression(job.schedule),
          ScheduleExpressionTimezone: job.timezone,
          FlexibleTimeWindow: { Mode: 'OFF' },
          State: 'ENABLED',
          Description: `Tessera job ${job.name} of ${job.tenant_id}`.slice(0, 512),
          Target: {
            Arn: functionArn,
            RoleArn: roleArn,
            Input: JSON.stringify({
              tenant_id: job.tenant_id,
              job_id: job.job_id,
              scheduled_for: '<aws.scheduler.scheduled-time>',
            }),
            RetryPolicy: { MaximumRetryAttempts: 0 },
          },
        }),
      );
    } catch (error) {
      // A retried create after its answer was lost: the schedule of this id is this job's.
      if (!(error instanceof ConflictException)) throw error;
    }
  }

  async remove(jobId: string): Promise<void> {
    try {
      await this.client.send(new DeleteScheduleCommand({ Name: jobId, GroupName: this.target.group }));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
  }
}

/**
 * Without EventBridge Scheduler (the local runtime): a job's `next_run` in the store is its schedule, which the
 * runtime's ticker (`fireDueJobs`) reads every half second, so there is nothing to create or remove beside it.
 */
export class StoreSchedules implements JobSchedules {
  async create(): Promise<void> {}
  async remove(): Promise<void> {}
}
