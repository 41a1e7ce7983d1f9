/** The in-memory fakes pass the contract suites their adapters pass. */
import { HashedTokenEncoder } from '@tessera/encoders';
import {
  blobStoreContract,
  configStoreContract,
  contentIndexContract,
  conversationStoreContract,
  graphStoreContract,
  harnessKeyStoreContract,
  instructionsStoreContract,
  jobQueueContract,
  jobRepositoryContract,
  jobStoreContract,
  memoryStoreContract,
  messagingStoreContract,
  outboundStoreContract,
  profileStoreContract,
  searchBackendContract,
  taskEventsContract,
  tenancyStoreContract,
  updateLogContract,
  wikiStoreContract,
} from '../src/contracts/index';
import {
  InMemoryBlobStore,
  InMemoryConfigStore,
  InMemoryContentIndex,
  InMemoryConversationStore,
  InMemoryGraphStore,
  InMemoryHarnessKeyStore,
  InMemoryInstructionsStore,
  InMemoryJobQueue,
  InMemoryJobRepository,
  InMemoryJobStore,
  InMemoryMemoryStore,
  InMemoryMessagingStore,
  InMemoryOutboundStore,
  InMemoryProfileStore,
  InMemorySearchBackend,
  InMemorySearchDatabase,
  InMemoryTaskEvents,
  InMemoryTenancyStore,
  InMemoryUpdateLog,
  InMemoryWikiStore,
  schemaCatalog,
} from '../src/fakes/index';

const blobs = new InMemoryBlobStore();
blobStoreContract('InMemoryBlobStore', () => ({
  store: blobs,
  putPresigned: (url, body, headers) => blobs.putPresigned(url, body, headers),
  checksSignedLength: true,
}));

const time = { offset: 0 };
const queue = new InMemoryJobQueue(() => Date.now() + time.offset);
jobQueueContract('InMemoryJobQueue', () => ({
  queue,
  receive: async () => queue.receive(),
  wait: async (ms) => {
    time.offset += ms;
  },
}));

jobRepositoryContract('InMemoryJobRepository', (now) => new InMemoryJobRepository(now));
taskEventsContract('InMemoryTaskEvents', (now) => new InMemoryTaskEvents(now));
tenancyStoreContract('InMemoryTenancyStore', () => new InMemoryTenancyStore());
configStoreContract('InMemoryConfigStore', () => new InMemoryConfigStore());
profileStoreContract('InMemoryProfileStore', () => new InMemoryProfileStore());

const search = new InMemorySearchDatabase();
searchBackendContract('InMemorySearchBackend', () => new InMemorySearchBackend(search));
contentIndexContract('InMemoryContentIndex', () => ({
  index: new InMemoryContentIndex(search),
  backend: new InMemorySearchBackend(search),
}));

const encoder = new HashedTokenEncoder();
graphStoreContract('InMemoryGraphStore', () => ({
  store: new InMemoryGraphStore(search, encoder),
  other: () => new InMemoryGraphStore(search, encoder),
  deploy: (schema) =>
    new InMemorySearchBackend(search).deploySchema(schema, schemaCatalog.get('knowledge_graph')!),
  drop: (schema) => new InMemorySearchBackend(search).dropSchema(schema),
}));

memoryStoreContract('InMemoryMemoryStore', () => ({
  store: new InMemoryMemoryStore(search, encoder),
  other: () => new InMemoryMemoryStore(search, encoder),
  deploy: (schema) =>
    new InMemorySearchBackend(search).deploySchema(schema, schemaCatalog.get('agent_memories')!),
  drop: (schema) => new InMemorySearchBackend(search).dropSchema(schema),
}));
instructionsStoreContract('InMemoryInstructionsStore', () => new InMemoryInstructionsStore());
const wikiDb = new InMemorySearchDatabase();
const wikiBackend = new InMemorySearchBackend(wikiDb);
const wikiStore = new InMemoryWikiStore(wikiDb);
wikiStoreContract('InMemoryWikiStore', () => ({
  store: wikiStore,
  deploy: (name) => wikiBackend.deploySchema(name, schemaCatalog.get('wiki')!),
}));

jobStoreContract('InMemoryJobStore', () => new InMemoryJobStore());
outboundStoreContract('InMemoryOutboundStore', () => new InMemoryOutboundStore());
messagingStoreContract('InMemoryMessagingStore', () => new InMemoryMessagingStore());
conversationStoreContract('InMemoryConversationStore', () => new InMemoryConversationStore());
harnessKeyStoreContract('InMemoryHarnessKeyStore', () => new InMemoryHarnessKeyStore());
updateLogContract('InMemoryUpdateLog', () => new InMemoryUpdateLog());
