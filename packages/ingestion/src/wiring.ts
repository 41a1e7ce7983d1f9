/** The production wiring of ingestion. */
import { content } from '@tessera/content';
import { taskEvents } from '@tessera/events';
import { createClaimExtractor, createEntityExtractor } from '@tessera/extractors';
import { graphDeps } from '@tessera/graph';
import type { IngestionDeps } from './deps';
import { DynamoJobRepository } from './dynamo-job-repository';
import { S3BlobStore } from './s3-blob-store';
import { SqsJobQueue } from './sqs-job-queue';

let deps: IngestionDeps | undefined;

export function ingestion(): IngestionDeps {
  deps ??= {
    content: content(),
    graph: graphDeps(),
    events: taskEvents(),
    jobs: new DynamoJobRepository(),
    blobs: new S3BlobStore(),
    queue: new SqsJobQueue(),
    entities: createEntityExtractor(),
    claims: createClaimExtractor(),
  };
  return deps;
}
