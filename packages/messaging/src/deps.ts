/** What messaging needs, built once per process (wiring.ts) or over fakes in tests. */
import type { TenancyDeps } from '@tessera/tenancy';
import type { MessagingStore, OutboundStore } from './store';

export interface MessagingDeps {
  tenancy: TenancyDeps;
  store: MessagingStore;
  outbound: OutboundStore;
  now: () => number;
}
