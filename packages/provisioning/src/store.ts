/**
 * The provisioning store port: each tenant's executions of the workflow and its provisioned resources (kept
 * together, so a tenant delete empties them at once).
 */
import { Provisioning } from '@tessera/api';
import { z } from 'zod';

export const StepState = z.object({
  status: z.enum(['running', 'completed', 'failed']),
  /** The attempt that last ran it. */
  attempt: z.number().int(),
  outcome: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
  at: z.number(),
});
export type StepState = z.infer<typeof StepState>;

export const ExecutionRecord = z.object({
  execution_id: z.string(),
  tenant_id: z.string(),
  input: Provisioning.ProvisionRequest,
  status: z.enum(['running', 'succeeded', 'failed']),
  /** 1 for the first run; each resume of a failed or stopped run adds one. */
  attempt: z.number().int(),
  /** The task of the current attempt, whose events report its steps. */
  workflow_id: z.string(),
  /** Holder of the task's lease (steps renew it as they run). */
  owner: z.string(),
  lease_until: z.number(),
  steps: z.record(z.string(), StepState),
  failed_step: z.string().optional(),
  error: z.string().optional(),
  revision: z.number().int(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type ExecutionRecord = z.infer<typeof ExecutionRecord>;

/** A tenant's quota (resource_quotas): enforced by ingestion. Null: no limit. */
export const QuotaRecord = z.object({
  cpu_quota: z.number().int().nullable(),
  memory_quota: z.number().int().nullable(),
  storage_quota: z.number().int().nullable(),
  /** Bytes of the tenant's uploads counted against `storage_quota`. */
  used_bytes: z.number().int(),
  updated_at: z.number(),
});
export type QuotaRecord = z.infer<typeof QuotaRecord>;

export type ResourceKind = 'namespace' | 'quota' | 'storage_claim';

export interface ProvisioningStore {
  /** Writes a new execution; false when one of its id exists. */
  createExecution(record: ExecutionRecord): Promise<boolean>;
  getExecution(tenantId: string, executionId: string): Promise<ExecutionRecord | undefined>;
  /** Replaces an execution whose revision is `revision` (the record carries the next); false otherwise. */
  replaceExecution(record: ExecutionRecord, revision: number): Promise<boolean>;
  putResource(tenantId: string, kind: ResourceKind, value: Record<string, unknown>): Promise<void>;
  getResource(tenantId: string, kind: ResourceKind): Promise<Record<string, unknown> | undefined>;
  /**
   * Counts `bytes` more of the tenant's uploads against its storage quota; answers the quota when they would
   * exceed it (nothing counted), else undefined (counted, or no quota).
   */
  reserveStorage(tenantId: string, bytes: number): Promise<number | undefined>;
  /** Removes a deleted tenant's executions and resources. */
  purgeTenant(tenantId: string): Promise<void>;
}
