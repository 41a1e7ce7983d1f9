/**
 * The queue side of the worker: what a message asks for (a job message names one job; an S3 object-created
 * notification names its objects' jobs), Lambda's batch answer, and the dead-letter queue's messages.
 */
import { log } from '@tessera/core';
import type { SQSRecord } from 'aws-lambda';
import { attemptTime, runJob } from './attempt';
import type { IngestionDeps } from './deps';
import { ingestionEnv } from './env';
import { jobOfIncomingKey } from './keys';
import { JobMessage } from './model';
import { endJob } from './settle';

/** A job a queue message asks for; `key` is the object whose arrival (an S3 notification) asks for it. */
interface Requested {
  jobId: string;
  key?: string;
}

function requestedJobs(body: string): Requested[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error(`Queue message is not JSON: ${body.slice(0, 200)}`);
  }
  const job = JobMessage.safeParse(parsed);
  if (job.success) return [{ jobId: job.data.job_id }];
  const records = (parsed as { Records?: { eventName?: string; s3?: { object?: { key?: string } } }[] })
    .Records;
  if (Array.isArray(records)) {
    return records
      .filter((record) => record.eventName?.startsWith('ObjectCreated'))
      .flatMap((record) => {
        const key = decodeURIComponent((record.s3?.object?.key ?? '').replace(/\+/g, ' '));
        const jobId = jobOfIncomingKey(key);
        return jobId === undefined ? [] : [{ jobId, key }];
      });
  }
  // S3's test notification when a bucket is wired to the queue, and anything else: nothing to run.
  if ((parsed as { Event?: string }).Event === 's3:TestEvent') return [];
  throw new Error(`Queue message is neither a job nor an S3 notification: ${body.slice(0, 200)}`);
}

/** The jobs a queue message asks for. */
export function jobsOfMessage(body: string): string[] {
  return requestedJobs(body).map((requested) => requested.jobId);
}

/** Lambda's SQS handler contract: failed messages are reported so only they are redelivered. */
export async function processRecords(
  deps: IngestionDeps,
  records: SQSRecord[],
  remainingMs?: () => number,
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failures: { itemIdentifier: string }[] = [];
  for (const record of records) {
    try {
      for (const { jobId, key } of requestedJobs(record.body)) {
        // A presigned upload whose job is gone (its tenant was deleted before the file came) is removed.
        if (key !== undefined && (await deps.jobs.state(jobId)) === undefined) {
          log.warn('an upload arrived for an ingestion job that does not exist; it is removed', {
            job: jobId,
            key,
          });
          await deps.blobs.delete([key]);
          continue;
        }
        await runJob(deps, jobId, attemptTime(remainingMs?.()));
      }
    } catch (error) {
      log.error('ingestion message failed; it will be redelivered', {
        message: record.messageId,
        receives: record.attributes?.ApproximateReceiveCount,
        error,
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}

/** Messages the dead-letter queue received: their jobs end `failed`. */
export async function processDeadLetters(deps: IngestionDeps, records: SQSRecord[]): Promise<void> {
  for (const record of records) {
    let jobIds: string[];
    try {
      jobIds = jobsOfMessage(record.body);
    } catch (error) {
      log.error('unreadable message in the ingestion dead-letter queue', {
        message: record.messageId,
        error,
      });
      continue;
    }
    for (const jobId of jobIds) {
      const message = `Job ${jobId} was delivered ${ingestionEnv.maxDeliveries} times without finishing and went to the dead-letter queue`;
      await endJob(
        deps,
        jobId,
        'failed',
        { error: message, error_type: 'IngestPipelineError' },
        {
          type: 'error',
          error_type: 'IngestPipelineError',
          error_message: message,
          recoverable: false,
        },
      );
    }
  }
}
