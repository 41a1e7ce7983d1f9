import { createRequire } from 'node:module';
import { PROVISION_STEPS } from '@tessera/provisioning/definition';
import { describe, expect, it } from 'vitest';
import { IN_PROCESS_STEP, provisioningDefinition, runDefinition, STEP_ERROR } from '../src/index';

/** asl-validator 4 (CommonJS, no types): `(definition) => {isValid, errors}`. */
const validate = createRequire(import.meta.url)('asl-validator') as (definition: unknown) => {
  isValid: boolean;
  errors: unknown[];
};

const ARN = 'arn:aws:lambda:us-east-1:123456789012:function:tessera-provisioning-step';

describe('provisioningDefinition', () => {
  it('is valid Amazon States Language, its twelve Task states named as document 2 names the steps', () => {
    const definition = provisioningDefinition(ARN);
    expect(validate(definition)).toMatchObject({ isValid: true, errors: [] });
    expect(validate(provisioningDefinition(IN_PROCESS_STEP)).isValid).toBe(true);
    const tasks = Object.entries(definition.States).filter(([, state]) => state.Type === 'Task');
    expect(tasks.map(([name]) => name)).toEqual([...PROVISION_STEPS, 'report_failure']);
    expect(definition.StartAt).toBe('validate_tenant_id');
    for (const step of PROVISION_STEPS) {
      expect(definition.States[step]).toMatchObject({
        Resource: ARN,
        Parameters: { step, 'execution_id.$': '$.execution_id', 'tenant_id.$': '$.tenant_id' },
        Catch: [{ ErrorEquals: ['States.ALL'], Next: 'report_failure' }],
      });
      expect((definition.States[step]!.Retry as { ErrorEquals: string[] }[])[0]!.ErrorEquals).toContain(
        STEP_ERROR,
      );
    }
    expect(definition.States.notify!.End).toBe(true);
    expect(definition.States.failed).toMatchObject({ Type: 'Fail' });
  });

  it('is refused by the validator when a state names a successor that does not exist', () => {
    const broken = provisioningDefinition(ARN);
    broken.States.verify_tenant!.Next = 'nowhere';
    expect(validate(broken).isValid).toBe(false);
  });
});

describe('runDefinition', () => {
  const definition = provisioningDefinition(ARN);
  const noSleep = { sleep: async () => undefined };

  it('invokes every step in order with its parameters and collects the results', async () => {
    const calls: unknown[] = [];
    const outcome = await runDefinition(
      definition,
      { execution_id: 'e1', tenant_id: 'a:b' },
      async (resource, payload) => {
        expect(resource).toBe(ARN);
        calls.push(payload);
        return { ran: payload.step };
      },
      noSleep,
    );
    expect(outcome.status).toBe('succeeded');
    expect(calls).toEqual(PROVISION_STEPS.map((step) => ({ step, execution_id: 'e1', tenant_id: 'a:b' })));
    expect((outcome.output as { results: Record<string, unknown> }).results.notify).toEqual({
      ran: 'notify',
    });
  });

  it('retries a transient error, and catches a definite one into report_failure with the error', async () => {
    const seen: string[] = [];
    let flaky = 0;
    const outcome = await runDefinition(
      definition,
      { execution_id: 'e2', tenant_id: 'a:b' },
      async (_resource, payload) => {
        seen.push(String(payload.step));
        if (payload.step === 'create_namespace' && flaky++ < 2) {
          throw Object.assign(new Error('create_namespace: throttled'), { name: STEP_ERROR });
        }
        if (payload.step === 'storage_claim') {
          throw Object.assign(new Error('storage_claim: no room'), { name: 'StepFailed' });
        }
        if (payload.step === 'report_failure') {
          expect(payload.error).toEqual({ Error: 'StepFailed', Cause: 'storage_claim: no room' });
        }
        return {};
      },
      noSleep,
    );
    expect(outcome).toMatchObject({ status: 'failed', error: 'ProvisioningFailed' });
    expect(seen.filter((step) => step === 'create_namespace')).toHaveLength(3);
    expect(seen.filter((step) => step === 'storage_claim')).toHaveLength(1);
    expect(seen.at(-1)).toBe('report_failure');
  });

  it('gives up retrying after MaxAttempts and reports the step', async () => {
    const seen: string[] = [];
    const outcome = await runDefinition(
      definition,
      { execution_id: 'e3', tenant_id: 'a:b' },
      async (_resource, payload) => {
        seen.push(String(payload.step));
        if (payload.step === 'validate_tenant_id')
          throw Object.assign(new Error('down'), { name: STEP_ERROR });
        return {};
      },
      noSleep,
    );
    expect(outcome.status).toBe('failed');
    expect(seen).toEqual([...Array(4).fill('validate_tenant_id'), 'report_failure']);
  });
});
