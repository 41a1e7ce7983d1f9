/**
 * The workflows of the route table as Step Functions standard state machines: provisioning's definition
 * (one for the state machine and the local runtime, `@tessera/provisioning/definition`) with its step
 * function as every Task's resource; the route that starts it may start its executions and no other.
 */
import {
  routes,
  type StepFunctionDef,
  stepFunctions as sharedStepFunctions,
} from '@tessera/functions/routes';
import { provisioningDefinition } from '@tessera/provisioning/definition';
import { Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { Api } from './api';
import { pascalCase } from './definitions';
import type { Functions } from './functions';

/** The handler of the route that starts provisioning, and the variable naming its state machine. */
export const PROVISION_ROUTE_HANDLER = 'http/provisioning.provisionTenant';
export const STATE_MACHINE_VARIABLE = 'TESSERA_PROVISION_STATE_MACHINE_ARN';

export interface WorkflowsProps {
  functions: Functions;
  api: Api;
  /** Defaults to the route table's step functions. */
  stepFunctions?: readonly StepFunctionDef[];
}

export class Workflows extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly stepFunction: lambda.Function;

  constructor(scope: Construct, id: string, props: WorkflowsProps) {
    super(scope, id);
    const def = (props.stepFunctions ?? sharedStepFunctions).find(
      (candidate) => candidate.name === 'provisioning-step',
    );
    if (!def) throw new Error('The route table has no provisioning-step function');
    this.stepFunction = props.functions.create(this, {
      name: pascalCase(def.name),
      handler: def.handler,
      description: 'Provisioning: one step of the workflow a call',
      timeoutSeconds: def.timeoutSeconds,
      memoryMb: def.memoryMb,
    });
    const definition = provisioningDefinition(this.stepFunction.functionArn);
    this.stateMachine = new sfn.StateMachine(this, 'Provisioning', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      comment: definition.Comment,
      definitionBody: sfn.DefinitionBody.fromString(Stack.of(this).toJsonString(definition)),
      logs: {
        destination: new logs.LogGroup(this, 'ProvisioningLogs', { retention: logs.RetentionDays.ONE_MONTH }),
        level: sfn.LogLevel.ERROR,
      },
    });
    this.stepFunction.grantInvoke(this.stateMachine);
    // A step renews its execution's lease for a Lambda's longest run (its state machine cannot be named in
    // its own environment: the two would depend on each other).
    this.stepFunction.addEnvironment('TESSERA_PROVISION_LEASE_MS', String(def.timeoutSeconds * 1000));
    const route = routes.find((candidate) => candidate.handler === PROVISION_ROUTE_HANDLER);
    const starter = route && props.api.functions.get(`${route.method} ${route.path}`);
    if (!starter) throw new Error(`No route function runs ${PROVISION_ROUTE_HANDLER}`);
    starter.addEnvironment(STATE_MACHINE_VARIABLE, this.stateMachine.stateMachineArn);
    this.stateMachine.grantStartExecution(starter);
  }
}
