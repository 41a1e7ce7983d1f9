/** Where a run of the workflow happens: the state machine (AWS), or the same definition in this process. */
import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { log } from '@tessera/core';
import { runDefinition } from './asl';
import { provisioningDefinition, type StepPayload } from './definition';
import type { ProvisioningDeps, WorkflowRunner } from './deps';
import { renewLease, runStep } from './workflow';

/** The resource the in-process run's Task states name: this process's step function. */
export const IN_PROCESS_STEP = 'arn:aws:lambda:local:000000000000:function:provisioning-step';

export class StateMachineRunner implements WorkflowRunner {
  readonly kind = 'state-machine' as const;
  private readonly client = new SFNClient({});

  constructor(private readonly stateMachineArn: string) {}

  async start(execution: { execution_id: string; tenant_id: string; attempt: number }): Promise<void> {
    try {
      await this.client.send(
        new StartExecutionCommand({
          stateMachineArn: this.stateMachineArn,
          // One Step Functions execution an attempt: a closed one's name cannot be used again.
          name: `${execution.execution_id}-a${execution.attempt}`,
          input: JSON.stringify({ execution_id: execution.execution_id, tenant_id: execution.tenant_id }),
        }),
      );
    } catch (error) {
      if (!(error instanceof ExecutionAlreadyExists)) throw error;
    }
  }
}

/** Runs the definition in this process (the local runtime), renewing the execution's lease meanwhile. */
export class InProcessRunner implements WorkflowRunner {
  readonly kind = 'in-process' as const;
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly deps: () => ProvisioningDeps) {}

  async start(execution: { execution_id: string; tenant_id: string; attempt: number }): Promise<void> {
    const deps = this.deps();
    const renew = setInterval(
      () => {
        renewLease(deps, execution.tenant_id, execution.execution_id).catch((error) =>
          log.warn('provisioning lease renewal failed', { execution: execution.execution_id, error }),
        );
      },
      Math.max(100, Math.floor(deps.leaseMs / 3)),
    );
    renew.unref();
    const run = runDefinition(
      provisioningDefinition(IN_PROCESS_STEP),
      { execution_id: execution.execution_id, tenant_id: execution.tenant_id },
      (_resource, payload) => runStep(deps, payload as unknown as StepPayload),
    )
      .then((outcome) => {
        if (outcome.status === 'failed') {
          log.warn('provisioning failed', { execution: execution.execution_id, cause: outcome.cause });
        }
      })
      .catch((error) => log.error('provisioning run crashed', { execution: execution.execution_id, error }))
      .finally(() => {
        clearInterval(renew);
        this.running.delete(run);
      });
    this.running.add(run);
  }

  /** Resolves when every run this runner started has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
