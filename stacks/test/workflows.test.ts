import { createRequire } from 'node:module';
import { routes } from '@tessera/functions/routes';
import { PROVISION_STEPS } from '@tessera/provisioning/definition';
import { Api, PROVISION_ROUTE_HANDLER, STATE_MACHINE_VARIABLE, Workflows } from '@tessera/stacks';
import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, logicalId, testApps } from './support';

const validate = createRequire(import.meta.url)('asl-validator') as (definition: unknown) => {
  isValid: boolean;
  errors: unknown[];
};

const apps = testApps();
afterAll(apps.remove);

/** The state machine's definition with the step function's ARN (a `Fn::GetAtt`) in place of its token. */
function definitionOf(template: Template): Record<string, unknown> {
  const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
  const body = (machine as { Properties: { DefinitionString: unknown } }).Properties.DefinitionString as {
    'Fn::Join': [string, unknown[]];
  };
  const text = body['Fn::Join'][1]
    .map((part) => (typeof part === 'string' ? part : 'arn:aws:lambda:us-east-1:123456789012:function:step'))
    .join('');
  return JSON.parse(text) as Record<string, unknown>;
}

describe('Workflows', () => {
  let shared: { stack: Stack; workflows: Workflows; api: Api; template: Template };

  beforeAll(() => {
    const { stack, functions } = compose(apps.create(), 'WorkflowsTest');
    const api = new Api(stack, 'Api', {
      functions,
      routes: routes.filter((r) => r.handler === PROVISION_ROUTE_HANDLER),
    });
    const workflows = new Workflows(stack, 'Workflows', { functions, api });
    shared = { stack, workflows, api, template: Template.fromStack(stack) };
  });

  it('is a standard state machine whose definition is valid ASL with a Task state per step of document 2', () => {
    const { template } = shared;
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', { StateMachineType: 'STANDARD' });
    const definition = definitionOf(template) as {
      StartAt: string;
      States: Record<string, { Type: string }>;
    };
    expect(validate(definition)).toMatchObject({ isValid: true, errors: [] });
    expect(definition.StartAt).toBe('validate_tenant_id');
    const tasks = Object.entries(definition.States)
      .filter(([, state]) => state.Type === 'Task')
      .map(([name]) => name);
    expect(tasks).toEqual([...PROVISION_STEPS, 'report_failure']);
    for (const step of PROVISION_STEPS) {
      expect(definition.States[step]).toMatchObject({
        Resource: 'arn:aws:lambda:us-east-1:123456789012:function:step',
        Retry: [expect.objectContaining({ ErrorEquals: expect.arrayContaining(['StepError']) })],
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'report_failure' }],
      });
    }
  });

  it('invokes only its step function, which runs the provisioning worker', () => {
    const { stack, workflows, template } = shared;
    const stepId = logicalId(stack, workflows.stepFunction);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.step',
      Timeout: 900,
      Environment: { Variables: Match.objectLike({ TESSERA_PROVISION_LEASE_MS: '900000' }) },
    });
    const roleId = (
      template.findResources('AWS::StepFunctions::StateMachine')[
        logicalId(stack, workflows.stateMachine)
      ] as {
        Properties: { RoleArn: { 'Fn::GetAtt': [string, string] } };
      }
    ).Properties.RoleArn['Fn::GetAtt'][0];
    const policies = template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: roleId }] },
    });
    const statements = Object.values(policies).flatMap(
      (policy) =>
        (
          policy as {
            Properties: { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } };
          }
        ).Properties.PolicyDocument.Statement,
    );
    const invoke = statements.filter((statement) =>
      JSON.stringify(statement.Action).includes('lambda:InvokeFunction'),
    );
    expect(invoke).toHaveLength(1);
    expect(JSON.stringify(invoke[0]!.Resource)).toContain(stepId);
    expect(JSON.stringify(invoke[0]!.Resource)).not.toMatch(/PostAdmin/);
  });

  it('gives the provision route the state machine to start, and the right to start it', () => {
    const { stack, workflows, api, template } = shared;
    const route = routes.find((candidate) => candidate.handler === PROVISION_ROUTE_HANDLER)!;
    const starter = api.functions.get(`${route.method} ${route.path}`)!;
    const machineId = logicalId(stack, workflows.stateMachine);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [STATE_MACHINE_VARIABLE]: { Ref: machineId } }) },
    });
    const starterRole =
      (starter.role!.node.defaultChild as { logicalId?: string }) && logicalId(stack, starter.role!);
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: starterRole }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 'states:StartExecution', Resource: { Ref: machineId } }),
        ]),
      },
    });
  });
});
