/**
 * The tenant's scheduled jobs (read-only, through the web server's `/ui-api/jobs`): each with its schedule,
 * agent and query, when it runs next, and how its latest run went. The list refreshes every half minute.
 */
import type { Jobs } from '@tessera/api';
import { useEffect, useId, useState } from 'react';
import { api } from '../api';
import { useRecoveries } from '../runtime-status';

const REFRESH_MS = 30_000;

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export default function JobsPage({ tenantId }: { tenantId: string }) {
  const id = useId();
  const recoveries = useRecoveries();
  const [jobs, setJobs] = useState<Jobs.Job[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    void recoveries;
    let live = true;
    const load = () =>
      api.jobs(tenantId).then(
        (answer) => {
          if (!live) return;
          setJobs(answer.jobs);
          setError(undefined);
        },
        (failure: Error) => live && setError(failure.message),
      );
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [tenantId, recoveries]);

  return (
    <section aria-labelledby={`${id}-title`} className="page">
      <h1 id={`${id}-title`} tabIndex={-1}>
        Scheduled jobs
      </h1>
      <p className="lead">
        Queries that run through an agent on a schedule; their answers go to the wiki or the tenant’s linked
        chats.
      </p>
      {error ? (
        <p className="error" role="alert">
          Jobs could not be loaded: {error}
        </p>
      ) : null}
      {!jobs && !error ? <p className="loading">Loading…</p> : null}
      {jobs && jobs.length === 0 ? <p className="hint">This tenant has no scheduled jobs.</p> : null}
      {jobs && jobs.length > 0 ? (
        <div className="table-wrap card">
          <table className="jobs-table">
            <caption className="visually-hidden">Scheduled jobs of {tenantId}</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Schedule</th>
                <th scope="col">Agent</th>
                <th scope="col">Next run</th>
                <th scope="col">Last run</th>
                <th scope="col">Runs</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((job) => (
                <tr key={job.job_id}>
                  <th scope="row">
                    {job.name}
                    <span className="job-query muted">{job.query}</span>
                  </th>
                  <td>
                    <code>{job.schedule}</code> <span className="muted">{job.timezone}</span>
                  </td>
                  <td>
                    {job.agent_name}
                    {job.post_actions.length > 0 ? (
                      <span className="muted"> → {job.post_actions.map((a) => a.type).join(', ')}</span>
                    ) : null}
                  </td>
                  <td>{when(job.next_run)}</td>
                  <td>
                    {job.last_run ? (
                      <>
                        <span className={`badge badge-${job.last_run.state}`}>{job.last_run.state}</span>{' '}
                        {when(job.last_run.finished_at ?? job.last_run.started_at)}
                        {job.last_run.error ? (
                          <span className="error job-error">{job.last_run.error}</span>
                        ) : null}
                      </>
                    ) : (
                      <span className="muted">not run yet</span>
                    )}
                  </td>
                  <td>{job.run_count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
