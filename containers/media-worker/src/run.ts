/**
 * What the media worker runs once its keys are resolved (see main.ts): with a job (`--job <id>`
 * or TESSERA_MEDIA_JOB_ID, as an ECS task is started for one) it runs that job and exits; without one it
 * consumes the ingestion queue (or TESSERA_MEDIA_QUEUE_URL) until it is stopped. It reaches the stores as the
 * functions do: AWS_ENDPOINT_URL for emulators, the resource names the stacks set.
 */
import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { log } from '@tessera/core';
import { processRecords, runJob } from '@tessera/ingestion';
import { queues, resourceName, sqsClient } from '@tessera/platform';
import { mediaWorkerEnv } from './env';
import { consumeQueue } from './queue';
import { jobArgument, mediaWorkerDeps } from './worker';

async function main(): Promise<void> {
  const deps = mediaWorkerDeps();
  const jobId = jobArgument(process.argv.slice(2)) ?? mediaWorkerEnv.mediaJobId;
  if (jobId) {
    log.info('media worker: running one job', { job: jobId });
    await runJob(deps, jobId);
    return;
  }
  const sqs = sqsClient();
  const queueUrl =
    mediaWorkerEnv.mediaQueueUrl ??
    (await sqs.send(new GetQueueUrlCommand({ QueueName: resourceName(queues.ingestion) }))).QueueUrl!;
  const controller = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());
  process.stdout.write(`Tessera media worker consuming ${queueUrl}\n`);
  await consumeQueue({
    sqs,
    queueUrl,
    handle: (records) => processRecords(deps, records),
    signal: controller.signal,
    waitSeconds: mediaWorkerEnv.mediaWaitSeconds,
    visibilitySeconds: mediaWorkerEnv.mediaVisibilitySeconds,
  });
}

main().then(
  // The media tools hold worker threads: the process ends here rather than when they time out.
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`Tessera media worker failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
