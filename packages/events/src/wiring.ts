/** The production task event store of this process, built once. */
import { DynamoTaskEvents } from './dynamo-task-events';
import type { TaskEvents } from './task-events';

let store: TaskEvents | undefined;

export function taskEvents(): TaskEvents {
  store ??= new DynamoTaskEvents();
  return store;
}
