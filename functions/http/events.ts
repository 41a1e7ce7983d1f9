/** Task event routes: SSE streams, cancellation and queue info. */
import { CancelRequest, streamTask, TaskEventStore, type TaskKind } from '@tessera/events';
import { httpRoute, sseRoute } from '@tessera/http';
import { requireTenant, tenancy } from '@tessera/tenancy';
import { z } from 'zod';

const store = new TaskEventStore();
const deps = tenancy();

const offsetQuery = z.object({
  from_offset: z
    .string()
    .regex(/^\d+$/, 'from_offset must be a non-negative integer')
    .transform(Number)
    .optional(),
});

const stream = (kind: TaskKind, route: string, param: 'workflow_id' | 'job_id') =>
  sseRoute(
    { route, path: z.object({ [param]: z.string().min(1) }), query: offsetQuery },
    ({ path, query, event, open }) =>
      streamTask(store, {
        taskId: (path as Record<string, string>)[param]!,
        kind,
        fromOffset: query.from_offset,
        lastEventId: event.headers?.['last-event-id'],
        open,
      }),
  );

export const workflowEvents = stream('workflow', '/events/workflows/{workflow_id}', 'workflow_id');
export const ingestionEvents = stream('ingestion', '/events/ingestion/{job_id}', 'job_id');

export const cancelWorkflow = httpRoute(
  { path: z.object({ workflow_id: z.string().min(1) }), body: CancelRequest },
  ({ path, body }) => store.cancel(path.workflow_id, 'workflow', body.reason),
);

export const queues = httpRoute({ query: z.object({ tenant_id: z.string() }) }, async ({ query }) => {
  const { tenant } = await requireTenant(deps, query.tenant_id);
  const tasks = await store.active(tenant.full);
  const infos = await Promise.all(tasks.map((task) => store.info(task.task_id)));
  return { tenant_id: tenant.full, queues: infos, count: infos.length };
});

const taskPath = z.object({ task_id: z.string().min(1) });

export const queueInfo = httpRoute({ path: taskPath }, ({ path }) => store.info(path.task_id));

export const queueOffset = httpRoute({ path: taskPath }, async ({ path }) => {
  const info = await store.info(path.task_id);
  const record = (await store.get(path.task_id))!;
  return { task_id: info.task_id, offset: record.next_offset };
});
