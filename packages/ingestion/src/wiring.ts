/** The production wiring of ingestion. */
import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { content } from '@tessera/content';
import { taskEvents } from '@tessera/events';
import { createClaimExtractor, createEntityExtractor } from '@tessera/extractors';
import { graphDeps } from '@tessera/graph';
import { buckets, queues, resourceName, s3Client, sqsClient } from '@tessera/platform';
import type { IngestionDeps } from './deps';
import { JobStore } from './jobs';

let deps: IngestionDeps | undefined;

export function ingestion(): IngestionDeps {
  if (deps) return deps;
  const sqs = sqsClient();
  let queueUrl: Promise<string> | undefined;
  deps = {
    content: content(),
    graph: graphDeps(),
    events: taskEvents(),
    jobs: new JobStore(),
    s3: s3Client(),
    sqs,
    bucket: resourceName(buckets.uploads),
    queueUrl() {
      queueUrl ??= sqs
        .send(new GetQueueUrlCommand({ QueueName: resourceName(queues.ingestion) }))
        .then((answer) => answer.QueueUrl!)
        .catch((error: unknown) => {
          queueUrl = undefined;
          throw error;
        });
      return queueUrl;
    },
    entities: createEntityExtractor(),
    claims: createClaimExtractor(),
  };
  return deps;
}
