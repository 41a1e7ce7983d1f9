/**
 * The EventBridge Scheduler adapter against moto's Scheduler API (a server of its own, started here): one
 * schedule a job in the group, with the converted expression, its time zone, the job-run target, role and
 * input; removed with the job; a repeated create or remove is no error.
 */
import { CreateScheduleGroupCommand, GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { storedJob } from '@tessera/testing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import startMoto from '../../../test/support/moto';
import { EventBridgeJobSchedules } from '../src/index';

let stopMoto: () => Promise<void>;
let client: SchedulerClient;
const target = {
  group: 'tessera-jobs',
  functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:job-run',
  roleArn: 'arn:aws:iam::123456789012:role/job-scheduler',
};

beforeAll(async () => {
  stopMoto = await startMoto();
  client = new SchedulerClient({
    endpoint: process.env.TESSERA_TEST_AWS_ENDPOINT_URL,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  await client.send(new CreateScheduleGroupCommand({ Name: target.group }));
}, 90_000);

afterAll(async () => {
  await stopMoto?.();
});

describe('EventBridgeJobSchedules', () => {
  it('creates one schedule a job with its expression, time zone, target and input, and removes it', async () => {
    const schedules = new EventBridgeJobSchedules(target, client);
    const job = storedJob('acme:prod', { schedule: '0 9 * * MON-FRI', timezone: 'Europe/Berlin' });
    await schedules.create(job);
    await schedules.create(job);
    const stored = await client.send(new GetScheduleCommand({ Name: job.job_id, GroupName: target.group }));
    expect(stored).toMatchObject({
      ScheduleExpression: 'cron(0 9 ? * MON,TUE,WED,THU,FRI *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: target.functionArn, RoleArn: target.roleArn },
    });
    expect(JSON.parse(stored.Target!.Input!)).toEqual({
      tenant_id: 'acme:prod',
      job_id: job.job_id,
      scheduled_for: '<aws.scheduler.scheduled-time>',
    });

    const rate = storedJob('acme:prod', { schedule: 'rate(1 minutes)' });
    await schedules.create(rate);
    expect(
      (await client.send(new GetScheduleCommand({ Name: rate.job_id, GroupName: target.group })))
        .ScheduleExpression,
    ).toBe('rate(1 minute)');

    await schedules.remove(job.job_id);
    await schedules.remove(job.job_id);
    await expect(
      client.send(new GetScheduleCommand({ Name: job.job_id, GroupName: target.group })),
    ).rejects.toThrow();
  });

  it('refuses to create a schedule without the run function and role, and still removes', async () => {
    const removeOnly = new EventBridgeJobSchedules({ group: target.group }, client);
    await expect(removeOnly.create(storedJob('acme:prod'))).rejects.toThrow(/TESSERA_JOB_RUN_FUNCTION_ARN/);
    await removeOnly.remove('job_absent');
  });
});
