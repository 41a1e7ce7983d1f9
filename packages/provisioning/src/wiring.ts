/** The production wiring of provisioning, built once per process. */
import { tracing } from '@tessera/config';
import { content } from '@tessera/content';
import { taskEvents } from '@tessera/events';
import { linkedChatCount, messagingStore } from '@tessera/messaging';
import { outboundStore, queueForTenant } from '@tessera/messaging/outbound';
import { profiles } from '@tessera/profiles';
import type { ProvisioningDeps } from './deps';
import { provisioningEnv } from './env';
import { provisioningStore } from './quotas';
import { InProcessRunner, StateMachineRunner } from './runners';
import { S3Namespace } from './s3-namespace';

let deps: ProvisioningDeps | undefined;

export function provisioning(): ProvisioningDeps {
  if (!deps) {
    const profileDeps = profiles();
    const built: ProvisioningDeps = {
      store: provisioningStore(),
      namespace: new S3Namespace(),
      tenancy: profileDeps.tenancy,
      profiles: profileDeps,
      index: content().index,
      events: taskEvents(),
      telemetry: tracing(),
      chats: {
        count: (tenantId) => linkedChatCount({ store: messagingStore() }, tenantId),
        queue: (tenantId, text) =>
          queueForTenant({ outbound: outboundStore(), now: Date.now }, tenantId, text, 'provisioning'),
      },
      leaseMs: provisioningEnv.provisionLeaseMs,
      now: Date.now,
    };
    built.runner = provisioningEnv.provisionStateMachineArn
      ? new StateMachineRunner(provisioningEnv.provisionStateMachineArn)
      : new InProcessRunner(() => built);
    deps = built;
  }
  return deps;
}
