/** Memories and instructions as stored and answered: the API's schemas. */
import { Memories } from '@tessera/api';
import { z } from 'zod';

/** One memory of a tenant's agent (answered by the admin routes as is). */
export const Memory = Memories.Memory;
export type Memory = Memories.Memory;

/** A memory recalled for a query, with its relevance (higher is better). */
export interface RecalledMemory {
  memory_id: string;
  agent_name: string;
  content: string;
  score: number;
}

/** The longest instructions a tenant may set. */
export const MAX_INSTRUCTIONS = Memories.MAX_INSTRUCTIONS;

/** A tenant's instructions as stored: one record whose version counts the writes (from 1). */
export const InstructionsRecord = Memories.Instructions.extend({
  text: z.string().max(MAX_INSTRUCTIONS),
  version: z.number().int().min(1),
});
export type InstructionsRecord = z.infer<typeof InstructionsRecord>;
