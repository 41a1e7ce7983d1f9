import { schedules, splitHandler } from '@tessera/functions/routes';
import { Schedules } from '@tessera/stacks';
import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, logicalId, testApps } from './support';

const apps = testApps();
afterAll(apps.remove);

describe('Schedules', () => {
  let shared: { stack: Stack; schedules: Schedules; template: Template };

  beforeAll(() => {
    const { stack, functions } = compose(apps.create(), 'SchedulesTest');
    const construct = new Schedules(stack, 'Schedules', { functions });
    shared = { stack, schedules: construct, template: Template.fromStack(stack) };
  });

  it('runs each schedule at its rate, invoking a function with its handler', () => {
    const { stack, schedules: construct, template } = shared;
    template.resourceCountIs('AWS::Scheduler::Schedule', schedules.length);
    for (const schedule of schedules) {
      const fn = construct.functions.get(schedule.name)!;
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: `rate(${schedule.rateMinutes} minutes)`,
        State: 'ENABLED',
        Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack, fn), 'Arn'] } }),
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Handler: `index.${splitHandler(schedule.handler).exportName}`,
      });
    }
  });

  it('gives each schedule a function of its own', () => {
    expect(new Set(shared.schedules.functions.values()).size).toBe(schedules.length);
    shared.template.resourceCountIs('AWS::Lambda::Function', schedules.length);
  });

  describe('given a one-minute schedule', () => {
    let synthesized: { template: Template };

    beforeAll(() => {
      const { stack, functions } = compose(apps.create(), 'OneMinuteTest');
      new Schedules(stack, 'Schedules', {
        functions,
        schedules: [
          {
            name: 'every-minute',
            handler: 'workers/maintenance.recoverTenants',
            rateMinutes: 1,
            atStartup: false,
          },
        ],
      });
      synthesized = { template: Template.fromStack(stack) };
    });

    it('writes a one-minute schedule as rate(1 minute)', () => {
      synthesized.template.resourceCountIs('AWS::Scheduler::Schedule', 1);
      synthesized.template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: 'rate(1 minute)',
      });
    });
  });
});
