/**
 * The provisioning workflow's one definition (Amazon States Language): twelve Task states named as
 * document 2 names the steps, each invoking the step function with its name, retried on transient errors,
 * caught into a report of the failed step. The state machine of the stacks is this definition with the step
 * function's ARN; the local runtime runs the same definition in process (`runDefinition`).
 */

/**
 * The workflow's steps, in order, named as document 2 names them. This module imports nothing: the stacks
 * read it (through SST's build, which leaves workspace packages it knows of unbundled).
 */
export const PROVISION_STEPS = [
  'validate_tenant_id',
  'create_namespace',
  'deploy_schemas',
  'create_telemetry_project',
  'resource_quotas',
  'storage_claim',
  'initialize_memory',
  'set_tier',
  'verify_namespace',
  'verify_storage',
  'verify_tenant',
  'notify',
] as const;
export type ProvisionStep = (typeof PROVISION_STEPS)[number];

/** A step's definite failure (bad input, a missing collector): reported, not retried. */
export const STEP_FAILED = 'StepFailed';
/** A step's transient failure (a service that did not answer): retried. */
export const STEP_ERROR = 'StepError';

/** What the step function is invoked with. */
export interface StepPayload {
  step: ProvisionStep | 'report_failure';
  execution_id: string;
  tenant_id: string;
  /** `report_failure`: the caught error (`{Error, Cause}`). */
  error?: { Error?: string; Cause?: string };
}

const TRANSIENT = [
  STEP_ERROR,
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

export type AslState = Record<string, unknown> & { Type: string };
export interface AslDefinition {
  Comment: string;
  StartAt: string;
  TimeoutSeconds: number;
  States: Record<string, AslState>;
}

/** The definition, its Task states invoking `stepResource` (a Lambda function ARN). */
export function provisioningDefinition(stepResource: string): AslDefinition {
  const invoke = (step: string, extra: Record<string, string> = {}) => ({
    Type: 'Task',
    Resource: stepResource,
    Parameters: { step, 'execution_id.$': '$.execution_id', 'tenant_id.$': '$.tenant_id', ...extra },
    Retry: [{ ErrorEquals: TRANSIENT, IntervalSeconds: 2, MaxAttempts: 3, BackoffRate: 2 }],
  });
  const States: Record<string, AslState> = {};
  PROVISION_STEPS.forEach((step, index) => {
    const next = PROVISION_STEPS[index + 1];
    States[step] = {
      ...invoke(step),
      ResultPath: `$.results.${step}`,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'report_failure' }],
      ...(next ? { Next: next } : { End: true }),
    };
  });
  States.report_failure = {
    ...invoke('report_failure', { 'error.$': '$.error' }),
    ResultPath: '$.reported',
    Next: 'failed',
  };
  States.failed = {
    Type: 'Fail',
    Error: 'ProvisioningFailed',
    Cause: 'A provisioning step failed; the ErrorEvent of the workflow task names it.',
  };
  return {
    Comment: "A tenant's provisioning (document 2): twelve steps, each reported on the workflow task",
    StartAt: PROVISION_STEPS[0],
    TimeoutSeconds: 3600,
    States,
  };
}
