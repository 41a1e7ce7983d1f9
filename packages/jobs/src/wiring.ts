/** The production wiring of the scheduled jobs, built once per process. */
import { AgentRegistry, agents, entityNames, registeredAgents, runAgentTask } from '@tessera/agents';
import { taskEvents } from '@tessera/events';
import { outboundStore } from '@tessera/messaging/outbound';
import { tenancy } from '@tessera/tenancy';
import { wiki } from '@tessera/wiki';
import type { JobsDeps } from './deps';
import { DynamoJobStore } from './dynamo-store';
import { jobsEnv } from './env';
import { jobSchedules } from './tenant-data';

let deps: JobsDeps | undefined;

export function jobs(): JobsDeps {
  if (deps) return deps;
  const agentDeps = agents();
  deps = {
    tenancy: tenancy(),
    store: new DynamoJobStore(),
    outbound: outboundStore(),
    schedules: jobSchedules(),
    events: taskEvents(),
    wiki: wiki(),
    requireAgent: async (name) => {
      AgentRegistry.find(await registeredAgents(agentDeps, ''), name);
    },
    runAgent: (name, query, tenantId, reporter) =>
      runAgentTask(agentDeps, name, query, { tenant_id: tenantId }, reporter, { baseUrl: '' }),
    tag: entityNames(agentDeps.entities),
    leaseMs: jobsEnv.leaseMs,
    now: Date.now,
  };
  return deps;
}
