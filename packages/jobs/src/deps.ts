/** What the jobs need, built once per process (wiring.ts) or over fakes in tests. */
import type { TaskEvents, TaskReporter } from '@tessera/events';
import type { TenancyDeps } from '@tessera/tenancy';
import type { WikiDeps } from '@tessera/wiki';
import type { JobSchedules, JobStore, OutboundStore } from './store';

export interface JobsDeps {
  tenancy: TenancyDeps;
  store: JobStore;
  outbound: OutboundStore;
  schedules: JobSchedules;
  events: TaskEvents;
  wiki: WikiDeps;
  /** Throws 404 `Agent '<name>' not found` for a name the agent registry does not know. */
  requireAgent(name: string): Promise<void>;
  /** Runs the agent for the tenant inside the run's workflow task (agents' dispatch). */
  runAgent(
    name: string,
    query: string,
    tenantId: string,
    reporter: TaskReporter,
  ): Promise<Record<string, unknown>>;
  /** Entity names in a text (the embedded tagger), for the wiki post action's topic pages. */
  tag(text: string): Promise<string[]>;
  /** How long a run holds its job. */
  leaseMs: number;
  now: () => number;
}
