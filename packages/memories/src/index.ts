/**
 * Agent memories and tenant instructions (document 3, clarifications "Wiki, memories, instructions, jobs"):
 * what agents remember per tenant and agent, recalled by relevance to a query, and each tenant's versioned
 * instructions, which every system prompt of its runs carries.
 */
export { DynamoInstructionsStore } from './dynamo-instructions-store';
export { LanceMemoryStore } from './lance-memory-store';
export {
  type IndexedMemory,
  indexed,
  MemoryIndex,
  type RecallScoring,
  type RecallWeights,
  SCORINGS,
} from './memory-index';
export { InstructionsRecord, MAX_INSTRUCTIONS, Memory, type RecalledMemory } from './model';
export {
  deleteMemories,
  getInstructions,
  instructionsData,
  listMemories,
  MAX_MEMORY_CHARS,
  MEMORY_SCHEMA,
  type MemoriesDeps,
  memoriesData,
  type NewMemory,
  putInstructions,
  recallMemories,
  remember,
  rememberAll,
  tenantInstructions,
} from './service';
export type { InstructionsStore, MemoryStore } from './store';
export { memories } from './wiring';
