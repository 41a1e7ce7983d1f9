/**
 * One contract suite per store port, run against its production adapter (an integration test next to the
 * adapter) and its in-memory fake (a unit test in this package), so the fake stays faithful.
 */
export { type BlobStoreSubject, blobStoreContract } from './blob-store';
export { conversationStoreContract, harnessKeyStoreContract } from './chat-stores';
export { configStoreContract } from './config-store';
export { type ContentIndexSubject, contentIndexContract } from './content-index';
export { type GraphStoreSubject, graphStoreContract } from './graph-store';
export { instructionsStoreContract } from './instructions-store';
export { type JobQueueSubject, jobQueueContract } from './job-queue';
export { jobRepositoryContract } from './job-repository';
export { jobStoreContract, storedJob } from './job-store';
export { type MemoryStoreSubject, memoryStoreContract } from './memory-store';
export { messagingStoreContract, outboundStoreContract } from './messaging-stores';
export { profileStoreContract, storedProfile } from './profile-store';
export { searchBackendContract } from './search-backend';
export { contractClock, refusal, unique } from './support';
export { taskEventsContract } from './task-events';
export { tenancyStoreContract } from './tenancy-store';
export { updateLogContract } from './update-log';
export { type WikiStoreSubject, wikiPage, wikiStoreContract } from './wiki-store';
