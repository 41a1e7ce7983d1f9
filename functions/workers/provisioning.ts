/** The provisioning state machine's step function: one step of an execution a call. */
import { provisioning, runStep, type StepPayload } from '@tessera/provisioning';

const deps = provisioning();

export const step = (payload: StepPayload) => runStep(deps, payload);
