/** What provisioning needs, built once per process. */

import type { TaskEvents } from '@tessera/events';
import type { ProfilesDeps } from '@tessera/profiles';
import type { ContentIndex } from '@tessera/search';
import type { Telemetry } from '@tessera/telemetry';
import type { TenancyDeps } from '@tessera/tenancy';
import type { NamespaceStore } from './s3-namespace';
import type { ProvisioningStore } from './store';

/** Starts a run of an execution: the state machine in AWS, the same definition in process elsewhere. */
export interface WorkflowRunner {
  readonly kind: 'state-machine' | 'in-process';
  start(execution: { execution_id: string; tenant_id: string; attempt: number }): Promise<void>;
}

export interface ProvisioningDeps {
  store: ProvisioningStore;
  namespace: NamespaceStore;
  tenancy: TenancyDeps;
  profiles: ProfilesDeps;
  index: ContentIndex;
  events: TaskEvents;
  telemetry: Telemetry;
  /**
   * The tenant's linked chats (messaging): the notify step queues its message for them when there are any,
   * else it reports on the task only.
   */
  chats?: {
    count(tenantId: string): Promise<number>;
    queue(tenantId: string, text: string): Promise<void>;
  };
  /** Set by the wiring once the deps exist (the in-process runner calls back into them). */
  runner?: WorkflowRunner;
  leaseMs: number;
  now: () => number;
}
