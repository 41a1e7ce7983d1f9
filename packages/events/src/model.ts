/** Task events: what producers report and what streams deliver. The wire shapes are @tessera/api's. */
import { Events } from '@tessera/api';

export const {
  ArtifactEvent,
  CancelRequest,
  CompleteEvent,
  ErrorEvent,
  EventBody,
  ProgressEvent,
  StatusEvent,
  TaskEvent,
  TaskKind,
  TaskState,
} = Events;
export type EventBody = Events.EventBody;
export type TaskEvent = Events.TaskEvent;
export type TaskKind = Events.TaskKind;
export type TaskState = Events.TaskState;

/** Events after which a task has ended. */
export function isTerminal(event: EventBody): boolean {
  return (
    event.type === 'complete' ||
    (event.type === 'error' && !event.recoverable) ||
    (event.type === 'status' &&
      (event.state === 'completed' || event.state === 'failed' || event.state === 'cancelled'))
  );
}
