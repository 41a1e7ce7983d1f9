/** The schedules of the route table: an EventBridge Scheduler rule invoking a function of its own each. */
import { type ScheduleDef, schedules as sharedSchedules } from '@tessera/functions/routes';
import { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { pascalCase } from './definitions';
import type { Functions } from './functions';

export interface SchedulesProps {
  functions: Functions;
  /** Defaults to the shared schedules. */
  schedules?: readonly ScheduleDef[];
}

export class Schedules extends Construct {
  /** Every schedule's function by the schedule's name. */
  readonly functions = new Map<string, lambda.Function>();

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    const schedules = props.schedules ?? sharedSchedules;
    props.functions.bundle(schedules.map((schedule) => schedule.handler));
    for (const schedule of schedules) {
      const name = `${pascalCase(schedule.name)}Job`;
      const fn = props.functions.create(this, {
        name,
        handler: schedule.handler,
        description: `Schedule ${schedule.name}, every ${schedule.rateMinutes} min`,
      });
      this.functions.set(schedule.name, fn);
      new scheduler.Schedule(this, `${name}Schedule`, {
        schedule: scheduler.ScheduleExpression.rate(Duration.minutes(schedule.rateMinutes)),
        // A run still waiting when the next one is due is dropped rather than piled up (the limit is a day).
        target: new LambdaInvoke(fn, {
          maxEventAge: Duration.minutes(Math.min(schedule.rateMinutes, 24 * 60)),
        }),
        description: `${schedule.name} every ${schedule.rateMinutes} min`,
      });
    }
  }
}
