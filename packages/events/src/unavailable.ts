/**
 * The task event store not answering, as one typed error: raised where the store's reads and cancellations
 * fail, so that routes, streams and producers need not wrap their calls (document 3's 503 body).
 */
import type { TaskEventsUnavailableDetail } from '@tessera/api';
import { HttpError, ServiceUnavailableError } from '@tessera/core';

export class TaskEventsUnavailableError extends ServiceUnavailableError {
  constructor(taskId?: string, cause?: unknown) {
    const detail: TaskEventsUnavailableDetail = {
      error: 'task_events_unavailable',
      message: 'The task event store did not answer; retry.',
      failure: 'TaskEventsUnavailable',
      ...(taskId ? { task_id: taskId } : {}),
    };
    const { error, message, ...extra } = detail;
    super(error, message, extra);
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * The failure of a store request about `taskId` as the store reports it: its own answers (404, 409) pass,
 * anything else (a refused connection, a timeout, an error of DynamoDB) means the store did not answer.
 */
export function unanswered(taskId?: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof HttpError) throw error;
    throw new TaskEventsUnavailableError(taskId, error);
  };
}
