import { routes } from '@tessera/functions/routes';
import {
  Api,
  Jobs,
  RUN_FUNCTION_VARIABLE,
  SCHEDULE_GROUP_VARIABLE,
  SCHEDULER_ROLE_VARIABLE,
} from '@tessera/stacks';
import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, logicalId, testApps } from './support';

const apps = testApps();
afterAll(apps.remove);

describe('Jobs', () => {
  let shared: { stack: Stack; jobs: Jobs; api: Api; template: Template };

  beforeAll(() => {
    const { stack, functions } = compose(apps.create(), 'JobsTest');
    // The job routes and a route that reaches no job code (the agent list).
    const api = new Api(stack, 'Api', {
      functions,
      routes: routes.filter(
        (r) => r.handler.startsWith('http/jobs.') || r.handler === 'http/agents.listAgents',
      ),
    });
    const jobs = new Jobs(stack, 'Jobs', { functions });
    shared = { stack, jobs, api, template: Template.fromStack(stack) };
  }, 600_000);

  it('has a schedule group and a role EventBridge Scheduler assumes to invoke the job-run function only', () => {
    const { stack, jobs, template } = shared;
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' } })],
      }),
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: logicalId(stack, jobs.role) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'lambda:InvokeFunction',
            Resource: Match.arrayWith([{ 'Fn::GetAtt': [logicalId(stack, jobs.runFunction), 'Arn'] }]),
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.runJob',
      Timeout: 900,
      Environment: { Variables: Match.objectLike({ TESSERA_TABLE_JOBS: Match.anyValue() }) },
    });
  });

  it('lets every function managing job schedules create and delete them in the group, and no other', () => {
    const { stack, jobs, api, template } = shared;
    const jobRoutes = routes.filter((r) => r.handler.startsWith('http/jobs.'));
    const managers = new Set(jobs.managers);
    for (const route of jobRoutes)
      expect(managers.has(api.functions.get(`${route.method} ${route.path}`)!)).toBe(true);
    expect(managers.has(jobs.runFunction)).toBe(true);
    expect(managers.has(api.functions.get('GET /agents')!)).toBe(false);

    const functions = template.findResources('AWS::Lambda::Function');
    for (const fn of jobs.managers) {
      const variables = (
        functions[logicalId(stack, fn)] as {
          Properties: { Environment: { Variables: Record<string, unknown> } };
        }
      ).Properties.Environment.Variables;
      expect(variables[SCHEDULE_GROUP_VARIABLE]).toEqual(stack.resolve(jobs.group.scheduleGroupName));
      expect(variables[SCHEDULER_ROLE_VARIABLE]).toEqual({
        'Fn::GetAtt': [logicalId(stack, jobs.role), 'Arn'],
      });
      if (fn === jobs.runFunction) expect(variables[RUN_FUNCTION_VARIABLE]).toBeUndefined();
      else
        expect(variables[RUN_FUNCTION_VARIABLE]).toEqual({
          'Fn::GetAtt': [logicalId(stack, jobs.runFunction), 'Arn'],
        });
    }
    const agents = functions[logicalId(stack, api.functions.get('GET /agents')!)] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    expect(agents.Properties.Environment.Variables[SCHEDULE_GROUP_VARIABLE]).toBeUndefined();

    const statements = [
      ...Object.values(template.findResources('AWS::IAM::Policy')),
      ...Object.values(template.findResources('AWS::IAM::ManagedPolicy')),
    ].flatMap(
      (policy) =>
        (policy as { Properties: { PolicyDocument: { Statement: { Action: unknown }[] } } }).Properties
          .PolicyDocument.Statement,
    );
    const scheduling = statements.filter((s) =>
      JSON.stringify(s.Action).includes('scheduler:CreateSchedule'),
    );
    // One statement a role: the job routes share their module's role.
    const roles = new Set(jobs.managers.map((fn) => fn.role));
    expect(roles.size).toBe(2);
    expect(scheduling).toHaveLength(roles.size);
    for (const statement of scheduling) {
      expect(JSON.stringify(statement)).toContain(':schedule/');
      expect(JSON.stringify(statement)).not.toContain('"*"');
    }
    const passRole = statements.filter((s) => s.Action === 'iam:PassRole');
    expect(passRole).toHaveLength(roles.size);
  });
});
