/**
 * The domains' dependencies over the in-memory fakes, for domain unit tests that need no emulator: one
 * tenancy, content, graph and ingestion wiring sharing one in-memory search database and one clock.
 */
import { conversationsData, harnessKeysData } from '@tessera/chat';
import { ConfigCache, type ConfigDeps, configData } from '@tessera/config';
import type { ContentDeps } from '@tessera/content';
import { KeyedSerializer } from '@tessera/core';
import { HashedTokenEncoder } from '@tessera/encoders';
import { taskEventsTenantData } from '@tessera/events';
import { type ClaimExtractor, CompromiseEntityExtractor, type EntityExtractor } from '@tessera/extractors';
import type { GraphDeps } from '@tessera/graph';
import { type IngestionDeps, ingestionTenantData } from '@tessera/ingestion';
import { instructionsData, type MemoriesDeps, memoriesData } from '@tessera/memories';
import { type MessagingDeps, messagingData } from '@tessera/messaging';
import { type ProfilesDeps, ProfileViews, profilesData, tenantProfiles } from '@tessera/profiles';
import { type TenancyDeps, TenantDataOwners } from '@tessera/tenancy';
import { type WikiDeps, wikiData } from '@tessera/wiki';
import { profileCatalog, schemaCatalog } from '../catalogs';
import { InMemoryConversationStore, InMemoryHarnessKeyStore } from './chat-stores';
import { InMemoryConfigStore } from './config-store';
import { InMemoryGraphStore } from './graph-store';
import { InMemoryBlobStore, InMemoryJobQueue, InMemoryJobRepository } from './ingestion';
import { InMemoryInstructionsStore, InMemoryMemoryStore } from './memories';
import { InMemoryMessagingStore, InMemoryOutboundStore } from './messaging';
import { InMemoryProfileStore } from './profile-store';
import { InMemoryContentIndex, InMemorySearchBackend, InMemorySearchDatabase } from './search';
import { InMemoryTaskEvents } from './task-events';
import { InMemoryTenancyStore } from './tenancy-store';
import { InMemoryWikiStore } from './wiki-store';

/** A tenant delete waits this long for work of the tenant that still runs. */
const PURGE_TIMING = { waitMs: 2_000, pollMs: 20 };

/** A clock tests move: `now()` is the real time plus `offset`. */
export class TestClock {
  offset = 0;
  readonly now = () => Date.now() + this.offset;
}

export interface FakeDomains {
  clock: TestClock;
  search: InMemorySearchDatabase;
  backend: InMemorySearchBackend;
  tenancy: TenancyDeps & { store: InMemoryTenancyStore };
  config: ConfigDeps & { store: InMemoryConfigStore };
  profiles: ProfilesDeps & { store: InMemoryProfileStore };
  content: ContentDeps & { index: InMemoryContentIndex };
  graph: GraphDeps & { store: InMemoryGraphStore };
  ingestion: IngestionDeps & {
    events: InMemoryTaskEvents;
    jobs: InMemoryJobRepository;
    blobs: InMemoryBlobStore;
    queue: InMemoryJobQueue;
  };
  memories: MemoriesDeps & { store: InMemoryMemoryStore; instructions: InMemoryInstructionsStore };
  wiki: WikiDeps & { store: InMemoryWikiStore };
  /** The chat stores: conversations and harness keys. */
  chat: { conversations: InMemoryConversationStore; keys: InMemoryHarnessKeyStore };
  /** Invites, mappings and linked chats, and the outbound queue. */
  messaging: MessagingDeps & { store: InMemoryMessagingStore; outbound: InMemoryOutboundStore };
}

/** Every domain over fakes; the embedded encoder and entity tagger are the real ones unless given. */
export function fakeDomains(
  options: { entities?: EntityExtractor; claims?: ClaimExtractor } = {},
): FakeDomains {
  const clock = new TestClock();
  const search = new InMemorySearchDatabase();
  const backend = new InMemorySearchBackend(search);
  const events = new InMemoryTaskEvents(clock.now);
  const tenancy = {
    store: new InMemoryTenancyStore(),
    backend,
    catalog: schemaCatalog,
    now: clock.now,
    createLeaseMs: 60_000,
    defaultBaseSchemas: ['video_frames'],
    owners: new TenantDataOwners(),
  };
  const config = {
    store: new InMemoryConfigStore(),
    tenancy,
    cache: new ConfigCache(2000, clock.now),
    writes: new KeyedSerializer(),
    now: clock.now,
  };
  const profiles = {
    store: new InMemoryProfileStore(),
    tenancy,
    shipped: profileCatalog,
    views: new ProfileViews(2000, clock.now),
    writes: new KeyedSerializer(),
    now: clock.now,
  };
  const encoder = new HashedTokenEncoder();
  const content = {
    tenancy,
    index: new InMemoryContentIndex(search),
    profiles: profileCatalog,
    profilesFor: (tenantFullId: string, options?: { fresh?: boolean }) =>
      tenantProfiles(profiles, tenantFullId, options),
    encoderFor: () => encoder,
  };
  const graph = { tenancy, encoder, store: new InMemoryGraphStore(search, encoder) };
  const ingestion = {
    content,
    graph,
    events,
    jobs: new InMemoryJobRepository(clock.now),
    blobs: new InMemoryBlobStore('uploads', clock.now),
    queue: new InMemoryJobQueue(clock.now),
    entities: options.entities ?? new CompromiseEntityExtractor(),
    claims: options.claims,
  };
  const memories = {
    tenancy,
    store: new InMemoryMemoryStore(search, encoder),
    instructions: new InMemoryInstructionsStore(),
    writes: new KeyedSerializer(),
    now: clock.now,
  };
  const wiki = { tenancy, store: new InMemoryWikiStore(search), now: clock.now };
  // The stores holding tenant data, in the order the application registers them (functions/tenant-data.ts).
  tenancy.owners
    .register(ingestionTenantData(ingestion, PURGE_TIMING))
    .register(taskEventsTenantData(events, PURGE_TIMING))
    .register(profilesData(profiles))
    .register(configData(config))
    .register(memoriesData(memories))
    .register(instructionsData(memories))
    .register(wikiData(wiki));
  const chat = { conversations: new InMemoryConversationStore(), keys: new InMemoryHarnessKeyStore() };
  tenancy.owners.register(conversationsData(chat.conversations)).register(harnessKeysData(chat.keys));
  const messaging = {
    tenancy,
    store: new InMemoryMessagingStore(),
    outbound: new InMemoryOutboundStore(),
    now: clock.now,
  };
  tenancy.owners.register(messagingData(messaging.store));
  return {
    clock,
    search,
    backend,
    tenancy,
    config,
    profiles,
    content,
    graph,
    ingestion,
    memories,
    wiki,
    chat,
    messaging,
  };
}
