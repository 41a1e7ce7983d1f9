/** Provisioning settings: where the workflow runs and how long a run's lease lasts. */
import { parseEnv } from '@tessera/core';
import { z } from 'zod';

const schema = z.object({
  /** The provisioning state machine (the stacks set it); unset, the workflow runs in process. */
  TESSERA_PROVISION_STATE_MACHINE_ARN: z.string().min(1).optional(),
  /**
   * How long a run in process holds its execution without renewing it (it renews at a third of it): a run
   * whose process died is resumed by the next start once this lapsed.
   */
  TESSERA_PROVISION_LEASE_MS: z.coerce.number().int().min(500).max(3_600_000).default(60_000),
});

export const provisioningEnv = parseEnv('provisioning', schema);
