/**
 * The task events a tenant owns: at its delete, what still runs is told to cancel, every task that nobody
 * will end any more ends `cancelled`, and ended tasks are forgotten after the retention of ended workflows
 * (their readers see how they ended first).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError, type TenantDataOwner, type TenantId } from '@tessera/core';
import type { TaskEvents, TaskRecord } from './task-events';

export interface PurgeTiming {
  /** How long a purge waits for tasks whose producer still works to end (then it fails: repeat the delete). */
  waitMs: number;
  pollMs: number;
}

export const DEFAULT_PURGE_TIMING: PurgeTiming = { waitMs: 15_000, pollMs: 250 };

export const deletedReason = (tenant: TenantId) => `Tenant ${tenant.full} was deleted`;

/**
 * Whether a producer still works the task: its lease is live and held by someone other than the task
 * itself (a queued ingestion job waits under a lease its own id holds, which nobody renews).
 */
export function producerWorking(events: TaskEvents, task: TaskRecord): boolean {
  return !task.ended && events.condition(task) === 'active' && task.lease_owner !== task.task_id;
}

/**
 * Runs `settle` until it answers no task still being worked, waiting between rounds; fails naming them once
 * `timing.waitMs` passed.
 */
export async function settleTenantWork(
  what: string,
  tenant: TenantId,
  timing: PurgeTiming,
  settle: () => Promise<string[]>,
): Promise<void> {
  const deadline = Date.now() + timing.waitMs;
  for (;;) {
    const working = await settle();
    if (working.length === 0) return;
    if (Date.now() >= deadline) {
      throw new Error(
        `${working.length} ${what} of tenant ${tenant.full} still running after its cancellation ` +
          `(${working.slice(0, 5).join(', ')}); repeat the delete once they stopped`,
      );
    }
    await sleep(timing.pollMs);
  }
}

export function taskEventsTenantData(
  events: TaskEvents,
  timing: PurgeTiming = DEFAULT_PURGE_TIMING,
): TenantDataOwner {
  return {
    name: 'task events',
    async stop(tenant) {
      // Oldest first; first reasons stay.
      await events.cancelTenant(tenant.full, deletedReason(tenant));
    },
    async purge(tenant) {
      await settleTenantWork('tasks', tenant, timing, async () => {
        const working: string[] = [];
        for (const task of await events.tenantTasks(tenant.full)) {
          if (task.ended) continue;
          if (producerWorking(events, task)) {
            working.push(task.task_id);
            continue;
          }
          await events
            .append(task.task_id, { type: 'status', state: 'cancelled', message: deletedReason(tenant) })
            .catch((error: unknown) => {
              // It ended meanwhile.
              if (!(error instanceof ConflictError)) throw error;
            });
        }
        return working;
      });
      for (const task of await events.tenantTasks(tenant.full)) await events.expireEnded(task.task_id);
    },
  };
}
