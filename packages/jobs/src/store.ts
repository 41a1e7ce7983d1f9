/** The job store port: a tenant's jobs, each with its next slot and the lease of its running run. */
import type { Jobs } from '@tessera/api';

export type { OutboundMessage, OutboundStore } from '@tessera/messaging/outbound';

export interface StoredRun {
  workflow_id: string;
  state: Jobs.RunState;
  scheduled_for: number;
  started_at: number;
  finished_at: number | null;
  error: string | null;
}

export interface StoredJob {
  tenant_id: string;
  job_id: string;
  name: string;
  schedule: string;
  timezone: string;
  query: string;
  agent_name: string;
  post_actions: Jobs.PostAction[];
  created_at: number;
  /** The next slot (epoch ms); the local ticker fires the job when it is due. */
  next_run: number;
  run_count: number;
  last_run: StoredRun | null;
  /** Until when the running run holds the job (epoch ms; 0: no run holds it). */
  lease_until: number;
}

export interface JobStore {
  /** Stores a new job; false when its id is taken. */
  create(job: StoredJob): Promise<boolean>;
  get(tenantId: string, jobId: string): Promise<StoredJob | undefined>;
  /** The tenant's jobs, oldest first. */
  list(tenantId: string): Promise<StoredJob[]>;
  /** Removes a job; false when there was none. */
  remove(tenantId: string, jobId: string): Promise<boolean>;
  /** Jobs of every tenant whose next slot is at or before `now` (the local ticker's read). */
  due(now: number): Promise<StoredJob[]>;
  /** Moves a job's next slot from `from` to `to`, only if it still is `from`: one process fires each slot. */
  advance(tenantId: string, jobId: string, from: number, to: number): Promise<boolean>;
  /**
   * Starts a run: records it as the last run and takes the job's lease until `leaseUntil`, only if the job
   * exists and no run holds a lease past `now`, so runs of one job never overlap. False otherwise.
   */
  startRun(
    tenantId: string,
    jobId: string,
    run: StoredRun,
    leaseUntil: number,
    now: number,
  ): Promise<boolean>;
  /** Ends the run `run.workflow_id` (if it is still the job's last run): its outcome, the lease given back. */
  finishRun(tenantId: string, jobId: string, run: StoredRun): Promise<void>;
}

/**
 * Where schedules live: EventBridge Scheduler in AWS (one schedule a job); without it, the job's `next_run`
 * in the store is its schedule and the runtime's ticker fires it.
 */
export interface JobSchedules {
  /** Creates the job's schedule (before the job is stored). */
  create(job: StoredJob): Promise<void>;
  /** Removes the job's schedule; an absent one is no error. */
  remove(jobId: string): Promise<void>;
}
