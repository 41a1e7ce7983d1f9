/**
 * In-memory fakes of every store port, faithful to their adapters' semantics and checked by the same
 * contract suites (`@tessera/testing/contracts`), and the domains wired over them.
 */
export { profileCatalog, schemaCatalog } from '../catalogs';
export { InMemoryConversationStore, InMemoryHarnessKeyStore } from './chat-stores';
export { InMemoryConfigStore } from './config-store';
export { type FakeDomains, fakeDomains, TestClock } from './domains';
export { InMemoryGraphStore } from './graph-store';
export { InMemoryBlobStore, InMemoryJobQueue, InMemoryJobRepository } from './ingestion';
export { InMemoryJobStore, RecordingSchedules } from './jobs';
export { InMemoryInstructionsStore, InMemoryMemoryStore } from './memories';
export { InMemoryMessagingStore, InMemoryOutboundStore } from './messaging';
export { InMemoryProfileStore } from './profile-store';
export {
  InMemoryContentIndex,
  InMemorySearchBackend,
  InMemorySearchDatabase,
  type MemoryTable,
} from './search';
export { InMemoryTaskEvents } from './task-events';
export { InMemoryTenancyStore } from './tenancy-store';
export { InMemoryUpdateLog } from './update-log';
export { InMemoryWikiStore } from './wiki-store';
