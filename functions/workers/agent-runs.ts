/**
 * The completed-run queue's worker: the memory each completed agent run leaves and its wiki filing, written
 * off the answer's path (a redelivered message writes once; failures are delivered again, then dead-lettered).
 */
import { completedRunWriter, recordCompletedRuns } from '@tessera/agents/completed-runs';
import type { SQSEvent } from 'aws-lambda';

const deps = completedRunWriter();

export const recordRuns = (event: SQSEvent) => recordCompletedRuns(deps, event.Records);
