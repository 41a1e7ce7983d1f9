/** What ingestion needs, built once per process. */
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ContentDeps } from '@tessera/content';
import type { TaskEvents } from '@tessera/events';
import type { ClaimExtractor, EntityExtractor } from '@tessera/extractors';
import type { GraphDeps } from '@tessera/graph';
import type { JobStore } from './jobs';

export interface IngestionDeps {
  content: ContentDeps;
  graph: GraphDeps;
  events: TaskEvents;
  jobs: JobStore;
  s3: S3Client;
  sqs: SQSClient;
  bucket: string;
  queueUrl(): Promise<string>;
  /** Entity extraction of the server-side graph pass. */
  entities: EntityExtractor;
  /** Claim extraction (an LLM); absent when no endpoint is configured, and then claims are skipped. */
  claims?: ClaimExtractor;
}
