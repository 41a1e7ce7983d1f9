/**
 * Tenant provisioning (document 2): the steps of `tessera provision`, the 12-step workflow (one definition,
 * run by the state machine or in process) and the quota records ingestion enforces.
 */
export { type RunOutcome, runDefinition, StatesError } from './asl';
export {
  type AslDefinition,
  PROVISION_STEPS,
  type ProvisionStep,
  provisioningDefinition,
  STEP_ERROR,
  STEP_FAILED,
  type StepPayload,
} from './definition';
export type { ProvisioningDeps, WorkflowRunner } from './deps';
export { DynamoProvisioningStore } from './dynamo-store';
export {
  ingestionSlots,
  provisioningData,
  provisioningStore,
  reserveUploadBytes,
  tenantQuota,
} from './quotas';
export { IN_PROCESS_STEP, InProcessRunner, StateMachineRunner } from './runners';
export { type NamespaceStore, S3Namespace } from './s3-namespace';
export {
  createTelemetryProject,
  deploySchemas,
  initializeMemory,
  namespacePrefix,
  STEPS,
  StepFailedError,
  storeTier,
  verifySchemas,
  workflowTenantId,
} from './steps';
export { ExecutionRecord, type ProvisioningStore, QuotaRecord } from './store';
export { provisioning } from './wiring';
export { executionName, renewLease, runStep, STATE_MACHINE_LEASE_MS, startProvisioning } from './workflow';
