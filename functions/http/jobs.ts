/** Scheduled job routes: create, list, get, delete, and the tenant's outbound messages. */
import { Jobs } from '@tessera/api';
import { tracing } from '@tessera/config';
import { httpRoute, reply } from '@tessera/http';
import {
  createJob as create,
  getJob as get,
  jobs,
  listJobs as list,
  listOutbound as outbound,
  deleteJob as remove,
} from '@tessera/jobs';

const deps = jobs();
// Spans of this module follow tenants' telemetry records.
tracing();

export const createJob = httpRoute(Jobs.createJob, async ({ path, body }) =>
  reply(201, await create(deps, path.tenant, body)),
);

export const listJobs = httpRoute(Jobs.listJobs, ({ path }) => list(deps, path.tenant));

export const getJob = httpRoute(Jobs.getJob, ({ path }) => get(deps, path.tenant, path.job_id));

export const deleteJob = httpRoute(Jobs.deleteJob, ({ path }) => remove(deps, path.tenant, path.job_id));

export const listOutbound = httpRoute(Jobs.listOutbound, ({ path }) => outbound(deps, path.tenant));
