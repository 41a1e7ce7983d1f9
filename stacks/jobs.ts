/**
 * Scheduled jobs in AWS: the job-run function, the EventBridge Scheduler group that holds one schedule per
 * job (created by the job routes before a job is stored, removed with it and with its tenant), and the role
 * the schedules invoke the function with. Every function whose code manages job schedules (it reads
 * `TESSERA_JOB_SCHEDULE_GROUP`: the job routes, tenant and organization deletes, tenant recovery, the job-run
 * function removing a stray schedule) gets the group, the role and the function's ARN, and may create and
 * delete schedules in that group and pass that role, nothing else. The jobs' records are the `jobs` table of
 * the shared resources; the wiki needs nothing here: its pages are the tenant's wiki table in the search
 * bucket's LanceDB.
 */
import { jobRunFunction } from '@tessera/functions/routes';
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import type { Functions } from './functions';

export const SCHEDULE_GROUP_VARIABLE = 'TESSERA_JOB_SCHEDULE_GROUP';
export const RUN_FUNCTION_VARIABLE = 'TESSERA_JOB_RUN_FUNCTION_ARN';
export const SCHEDULER_ROLE_VARIABLE = 'TESSERA_JOB_SCHEDULER_ROLE_ARN';

export interface JobsProps {
  /** Create this construct after every other function: those created later get no schedule access. */
  functions: Functions;
}

export class Jobs extends Construct {
  readonly runFunction: lambda.Function;
  readonly group: scheduler.ScheduleGroup;
  readonly role: iam.Role;
  /** The functions that may create and delete job schedules. */
  readonly managers: lambda.Function[];

  constructor(scope: Construct, id: string, props: JobsProps) {
    super(scope, id);
    this.runFunction = props.functions.create(this, {
      name: 'JobRun',
      handler: jobRunFunction.handler,
      description: "A scheduled job's run: its agent as a workflow task, then its post actions",
      timeoutSeconds: jobRunFunction.timeoutSeconds,
      memoryMb: jobRunFunction.memoryMb,
    });
    this.group = new scheduler.ScheduleGroup(this, 'Group', {});
    const stack = Stack.of(this);
    this.role = new iam.Role(this, 'SchedulerRole', {
      description: 'Invoked by the job schedules: runs the job-run function',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
    });
    this.runFunction.grantInvoke(this.role);

    const schedules = stack.formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.group.scheduleGroupName}/*`,
    });
    this.managers = props.functions.readersOf(SCHEDULE_GROUP_VARIABLE);
    for (const fn of this.managers) {
      fn.addEnvironment(SCHEDULE_GROUP_VARIABLE, this.group.scheduleGroupName);
      fn.addEnvironment(SCHEDULER_ROLE_VARIABLE, this.role.roleArn);
      // The run function cannot name itself (its ARN in its own environment); it only removes schedules.
      if (fn !== this.runFunction) fn.addEnvironment(RUN_FUNCTION_VARIABLE, this.runFunction.functionArn);
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'],
          resources: [schedules],
        }),
      );
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['iam:PassRole'], resources: [this.role.roleArn] }),
      );
    }
  }
}
