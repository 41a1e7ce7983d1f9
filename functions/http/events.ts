/** Task event routes: SSE streams, cancellation and queue info. */
import { Events } from '@tessera/api';
import { tracing } from '@tessera/config';
import { streamTask, taskEvents } from '@tessera/events';
import { httpRoute, sseRoute } from '@tessera/http';
import { requireTenant, tenancy } from '@tessera/tenancy';

const store = taskEvents();
// Spans of this module follow tenants' telemetry records.
tracing();
const deps = tenancy();

export const workflowEvents = sseRoute(Events.workflowEvents, ({ path, query, event, open, noContent }) =>
  streamTask(store, {
    taskId: path.workflow_id,
    kind: 'workflow',
    fromOffset: query.from_offset,
    lastEventId: event.headers?.['last-event-id'],
    open,
    noContent,
  }),
);

export const ingestionEvents = sseRoute(Events.ingestionEvents, ({ path, query, event, open, noContent }) =>
  streamTask(store, {
    taskId: path.job_id,
    kind: 'ingestion',
    fromOffset: query.from_offset,
    lastEventId: event.headers?.['last-event-id'],
    open,
    noContent,
  }),
);

export const cancelWorkflow = httpRoute(Events.cancelWorkflow, ({ path, body }) =>
  store.cancel(path.workflow_id, 'workflow', body.reason),
);

export const queues = httpRoute(Events.queues, async ({ query }) => {
  const { tenant } = await requireTenant(deps, query.tenant_id);
  const tasks = await store.active(tenant.full);
  const infos = await Promise.all(tasks.map((task) => store.info(task.task_id)));
  return { tenant_id: tenant.full, queues: infos, count: infos.length };
});

export const queueInfo = httpRoute(Events.queueInfo, ({ path }) => store.info(path.task_id));

export const queueOffset = httpRoute(Events.queueOffset, async ({ path }) => {
  const info = await store.info(path.task_id);
  const record = (await store.get(path.task_id))!;
  return { task_id: info.task_id, offset: record.next_offset };
});
