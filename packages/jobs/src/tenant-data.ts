/**
 * What a tenant delete removes of the jobs: the tenant's jobs with their schedules, and its queued messages.
 * Its own entry point (`@tessera/jobs/tenant-data`), so the functions that remove tenants bundle the stores
 * and the scheduler client, not the agents that run jobs.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { TenantDataOwner } from '@tessera/core';
import { outboundStore } from '@tessera/messaging/outbound';
import { platformEnv } from '@tessera/platform';
import { DynamoJobStore } from './dynamo-store';
import { jobsEnv } from './env';
import { EventBridgeJobSchedules, StoreSchedules } from './eventbridge-schedules';
import { purgeTenantJobs } from './service';
import type { JobSchedules, JobStore, OutboundStore } from './store';

/** EventBridge Scheduler when the stacks named its schedule group; else the store's slots. */
export function jobSchedules(): JobSchedules {
  const { scheduleGroup, runFunctionArn, schedulerRoleArn } = jobsEnv;
  if (scheduleGroup) {
    return new EventBridgeJobSchedules(
      { group: scheduleGroup, functionArn: runFunctionArn, roleArn: schedulerRoleArn },
      new SchedulerClient({ region: platformEnv.awsRegion }),
    );
  }
  return new StoreSchedules();
}

export interface JobsData {
  store: JobStore;
  outbound: OutboundStore;
  schedules: JobSchedules;
}

/** The tenant's jobs with their schedules, and its queued messages, removed by a tenant delete. */
export function jobsData(
  of: JobsData = {
    store: new DynamoJobStore(),
    outbound: outboundStore(),
    schedules: jobSchedules(),
  },
): TenantDataOwner {
  return {
    name: 'scheduled jobs and outbound messages',
    purge: (tenant) => purgeTenantJobs(of, tenant),
  };
}
