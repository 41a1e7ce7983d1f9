/** Ingestion workers: the queue's event source, its dead-letter queue, and recovery of idle jobs. */

import { log, tuneV8ForShortJobs } from '@tessera/core';
import { ingestion, processDeadLetters, processRecords, recoverIdleJobs } from '@tessera/ingestion';
import type { Context, SQSEvent } from 'aws-lambda';

tuneV8ForShortJobs();
const deps = ingestion();
// The entity tagger loads while the function starts, not on the first document.
deps.entities.warm?.();

export const processJobs = (event: SQSEvent, context?: Context) =>
  processRecords(deps, event.Records, context ? () => context.getRemainingTimeInMillis() : undefined);

export const deadLetters = (event: SQSEvent) => processDeadLetters(deps, event.Records);

/** Scheduled: jobs idle past the queue's visibility timeout are queued again (`idleSeconds` overrides). */
export const recoverJobs = async (event: { idleSeconds?: number } = {}) => {
  const requeued = await recoverIdleJobs(deps, (event.idleSeconds ?? 20 * 60) * 1000);
  if (requeued.length > 0) log.info('ingestion jobs queued again', { jobs: requeued });
  return { requeued };
};
