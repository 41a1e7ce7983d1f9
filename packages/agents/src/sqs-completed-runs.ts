/** The SQS adapter of the completed-run queue (the resource definition's `agentRuns`). */
import { queues, resourceName, SqsQueue } from '@tessera/platform';
import type { CompletedRunMessage, CompletedRuns } from './completed-runs';

export class SqsCompletedRuns implements CompletedRuns {
  constructor(readonly queue = new SqsQueue(resourceName(queues.agentRuns))) {}

  send(message: CompletedRunMessage): Promise<void> {
    return this.queue.send(message);
  }
}
