/** What ingestion needs, built once per process. */
import type { ContentDeps } from '@tessera/content';
import type { TaskEvents } from '@tessera/events';
import type { ClaimExtractor, EntityExtractor } from '@tessera/extractors';
import type { GraphDeps } from '@tessera/graph';
import type { ProvisioningStore } from '@tessera/provisioning/quotas';
import type { MediaTools } from './pipelines/media-tools';
import type { BlobStore, JobQueue, JobRepository, MediaTaskLauncher } from './ports';

export interface IngestionDeps {
  content: ContentDeps;
  graph: GraphDeps;
  events: TaskEvents;
  jobs: JobRepository;
  /** The uploads: posted bundles, presigned files, a tenant's own objects. */
  blobs: BlobStore;
  queue: JobQueue;
  /** Entity extraction of the server-side graph pass. */
  entities: EntityExtractor;
  /** Claim extraction (an LLM); absent when no endpoint is configured, and then claims are skipped. */
  claims?: ClaimExtractor;
  /** The media tools (ffmpeg, OCR, speech detection), loaded on first use; absent where media is not run. */
  media?: () => Promise<MediaTools>;
  /** Where jobs go that need the media worker; absent: they run here. */
  mediaTasks?: MediaTaskLauncher;
  /**
   * The extractors of one tenant's graph pass, when they depend on the tenant (its LLM endpoint, through the
   * platform's LLM client); `entities` and `claims` above otherwise.
   */
  extractorsFor?: (tenantFullId: string) => Promise<Extractors>;
  /**
   * Tenants' quotas, as provisioning recorded them: storage across uploads, concurrent slots. Absent: the
   * deployment's slots and no storage limit.
   */
  quotas?: ProvisioningStore;
}

export interface Extractors {
  entities: EntityExtractor;
  /** Absent when no LLM endpoint is configured for the tenant: claims are then skipped. */
  claims?: ClaimExtractor;
}
