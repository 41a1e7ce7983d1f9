/**
 * Agent memories and tenant instructions (document 3, clarifications "Wiki, memories, instructions, jobs"):
 * the admin routes that list and delete what a tenant's agents remember, and set or read the tenant's
 * instructions, which every system prompt of its runs carries.
 */
import { z } from 'zod';
import { AgentName } from './agents';
import { route } from './contract';
import { outage, tenantGuard } from './errors';
import { queryInt } from './params';

/** The longest instructions a tenant may set. */
export const MAX_INSTRUCTIONS = 20_000;

const tenantPath = z.object({
  tenant: z
    .string()
    .meta({ description: 'The tenant id (`org:tenant`, or a name of the default organization).' }),
});

export const Memory = z
  .object({
    memory_id: z.string(),
    agent_name: z.string(),
    content: z
      .string()
      .meta({ description: 'What the agent remembered: a run leaves its query and one line of its answer.' }),
    created_at: z.number().int().meta({ description: 'Epoch milliseconds.' }),
  })
  .meta({ id: 'Memory' });
export type Memory = z.infer<typeof Memory>;

export const MemoryList = z
  .object({
    memories: z.array(Memory).meta({ description: 'Newest first, at most `limit`.' }),
    total_count: z.number().int().min(0).meta({ description: 'Memories matching the filter, all of them.' }),
  })
  .meta({ id: 'MemoryList' });

export const listMemories = route({
  id: 'listMemories',
  group: 'memories',
  method: 'GET',
  route: '/admin/tenant/{tenant}/memories',
  summary: "A tenant's agent memories, newest first",
  path: tenantPath,
  query: z.object({
    agent_name: AgentName.optional().meta({ description: 'Only the memories of this agent.' }),
    limit: queryInt({ min: 1, max: 1000, default: 100 }),
  }),
  responses: { 200: { description: 'The memories and how many match.', schema: MemoryList } },
  errors: { ...tenantGuard, 503: outage },
});

export const deleteMemories = route({
  id: 'deleteMemories',
  group: 'memories',
  method: 'DELETE',
  route: '/admin/tenant/{tenant}/memories',
  summary: "Delete a tenant's agent memories (all, or one agent's)",
  path: tenantPath,
  query: z.object({
    agent_name: AgentName.optional().meta({ description: "Only this agent's memories." }),
  }),
  responses: {
    200: {
      description: 'How many were deleted.',
      schema: z.object({ deleted: z.number().int().min(0) }).meta({ id: 'MemoriesDeleted' }),
    },
  },
  errors: { ...tenantGuard, 503: outage },
});

export const Instructions = z
  .object({
    tenant_id: z.string().meta({ description: 'The canonical tenant id.' }),
    text: z.string().meta({ description: "'' when never set." }),
    version: z.number().int().min(0).meta({ description: 'Counts the writes; 0 when never set.' }),
    updated_at: z.number().int().meta({ description: 'Epoch ms of the version; 0 when never set.' }),
  })
  .meta({ id: 'Instructions' });
export type Instructions = z.infer<typeof Instructions>;

export const InstructionsRequest = z
  .strictObject({
    text: z
      .string()
      .max(MAX_INSTRUCTIONS)
      .meta({ description: `The instructions, at most ${MAX_INSTRUCTIONS} characters ('' clears them).` }),
  })
  .meta({ id: 'InstructionsRequest' });

export const putInstructions = route({
  id: 'putInstructions',
  group: 'memories',
  method: 'PUT',
  route: '/admin/tenant/{tenant}/instructions',
  summary: "Set a tenant's instructions (the next version)",
  description:
    'Every agent run of the tenant puts them in its system prompts. Concurrent writes each get their own version.',
  path: tenantPath,
  body: InstructionsRequest,
  responses: { 200: { description: 'The version written.', schema: Instructions } },
  errors: { ...tenantGuard, 503: outage },
});

export const getInstructions = route({
  id: 'getInstructions',
  group: 'memories',
  method: 'GET',
  route: '/admin/tenant/{tenant}/instructions',
  summary: "A tenant's instructions",
  path: tenantPath,
  responses: {
    200: { description: "The latest version, or `text: ''` at version 0.", schema: Instructions },
  },
  errors: { ...tenantGuard, 503: outage },
});
