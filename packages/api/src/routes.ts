/** Every route contract, in the order of the route table. */
import * as Agents from './agents';
import * as Chat from './chat';
import * as Config from './config';
import type { RouteContract } from './contract';
import * as Events from './events';
import * as Graph from './graph';
import * as Health from './health';
import * as Ingestion from './ingestion';
import * as Jobs from './jobs';
import * as Knowledge from './knowledge';
import * as Memories from './memories';
import * as OpenApi from './openapi-route';
import * as Organizations from './organizations';
import * as Profiles from './profiles';
import * as Provisioning from './provisioning';
import * as Schemas from './schemas';
import * as Search from './search';
import * as Tenants from './tenants';
import * as Wiki from './wiki';

export const contracts: readonly RouteContract[] = [
  Health.health,
  Organizations.createOrganization,
  Organizations.listOrganizations,
  Organizations.getOrganization,
  Organizations.listOrganizationTenants,
  Organizations.deleteOrganization,
  Tenants.createTenant,
  Tenants.getTenant,
  Tenants.deleteTenant,
  Tenants.setTenantTier,
  Tenants.getTenantTier,
  Provisioning.provisionTenant,
  Config.getTenantConfig,
  Config.putTenantConfig,
  Config.tenantConfigHistory,
  Config.rollbackTenantConfig,
  Config.getSystemConfig,
  Config.putSystemConfig,
  Config.systemConfigHistory,
  Config.rollbackSystemConfig,
  Profiles.createProfile,
  Profiles.profileTemplates,
  Profiles.listProfiles,
  Profiles.getProfile,
  Profiles.updateProfile,
  Profiles.deleteProfile,
  Profiles.deployProfile,
  Schemas.reconcileOrphans,
  Schemas.schemaDrift,
  Search.search,
  Search.profiles,
  Graph.upsert,
  Graph.search,
  Graph.neighbors,
  Graph.path,
  Graph.stats,
  Events.workflowEvents,
  Events.ingestionEvents,
  Ingestion.upload,
  Ingestion.presign,
  Ingestion.start,
  Ingestion.status,
  Events.cancelWorkflow,
  Ingestion.cancel,
  Events.queues,
  Events.queueInfo,
  Events.queueOffset,
  Agents.listAgents,
  Agents.agentsByCapability,
  Agents.agentCard,
  Agents.processAgent,
  Memories.listMemories,
  Memories.deleteMemories,
  Memories.putInstructions,
  Memories.getInstructions,
  Wiki.save,
  Wiki.search,
  Wiki.getTopic,
  Wiki.deleteTopic,
  Wiki.index,
  Wiki.lint,
  Jobs.createJob,
  Jobs.listJobs,
  Jobs.getJob,
  Jobs.deleteJob,
  Jobs.listOutbound,
  Knowledge.traverse,
  Knowledge.temporalCompare,
  Knowledge.synthesize,
  Knowledge.detectContradictions,
  Knowledge.summarize,
  Knowledge.traceCitation,
  Knowledge.explainAudit,
  Knowledge.compareTenants,
  Knowledge.federatedQuery,
  Chat.chatCompletions,
  Chat.listConversations,
  Chat.getConversation,
  Chat.deleteConversation,
  Chat.createHarnessKey,
  Chat.revokeHarnessKey,
  Chat.agUiRun,
  OpenApi.openapi,
];

/** The contract of `METHOD route` (`GET /admin/tenants/{tenant_full_id}`). */
export function contractOf(method: string, route: string): RouteContract | undefined {
  return contracts.find((contract) => contract.method === method && contract.route === route);
}
