/**
 * Uploads: files picked or dropped go up one job each (small ones through the web server, large ones through
 * a presigned PUT), with upload progress, then the job's live events until it ends. The jobs of this tab
 * survive a reload: unfinished ones are followed again from their first event.
 */
import type { Search } from '@tessera/api';
import { useCallback, useEffect, useId, useReducer, useRef, useState } from 'react';
import { ApiError, api } from '../api';
import { Link } from '../router';
import { applyFrame, applyStatus, fractionOf, isTerminal, type Job, newJob } from './jobs';
import { followJob, PRESIGNED_ABOVE, type Transfer, uploadForm, uploadPresigned } from './transfer';

type Action =
  | { type: 'add'; job: Job }
  | { type: 'update'; key: string; update: (job: Job) => Job }
  | { type: 'remove'; key: string };

function reducer(jobs: Job[], action: Action): Job[] {
  switch (action.type) {
    case 'add':
      return [action.job, ...jobs];
    case 'update':
      return jobs.map((job) => (job.key === action.key ? action.update(job) : job));
    case 'remove':
      return jobs.filter((job) => job.key !== action.key);
  }
}

const storageKey = (tenantId: string) => `tessera.jobs.${tenantId}`;

function restore(tenantId: string): Job[] {
  try {
    const saved = JSON.parse(sessionStorage.getItem(storageKey(tenantId)) ?? '[]') as Job[];
    // An upload cut by the reload cannot resume; a job the runtime has is followed again from its start.
    return saved
      .filter((job) => job.jobId)
      .map((job) => (isTerminal(job.phase) ? job : { ...job, lastOffset: -1, log: [], stream: 'idle' }));
  } catch {
    return [];
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const PHASE_LABEL: Record<Job['phase'], string> = {
  uploading: 'Uploading',
  queued: 'Queued',
  running: 'Processing',
  complete: 'Complete',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

function JobCard({ job, onCancel, onDismiss }: { job: Job; onCancel: () => void; onDismiss: () => void }) {
  const fraction = fractionOf(job);
  const terminal = isTerminal(job.phase);
  const label = `${job.name}: ${PHASE_LABEL[job.phase]}`;
  return (
    <li className={`card job job-${job.phase}`} aria-label={label}>
      <div className="job-head">
        <h3>{job.name}</h3>
        <span className={`badge badge-${job.phase}`}>{PHASE_LABEL[job.phase]}</span>
      </div>
      <p className="muted job-meta">
        {formatBytes(job.size)}
        {job.route === 'presigned' ? ' · direct to storage' : ''}
        {job.jobId ? ` · ${job.jobId}` : ''}
        {job.stream === 'reconnecting' && !terminal ? ' · reconnecting…' : ''}
      </p>
      {terminal ? null : (
        <progress
          max={1}
          value={fraction}
          aria-label={`Progress of ${job.name}`}
          aria-valuetext={
            fraction === undefined
              ? PHASE_LABEL[job.phase]
              : `${Math.round(fraction * 100)}% ${PHASE_LABEL[job.phase]}`
          }
        />
      )}
      {job.phase === 'uploading' ? (
        <p className="job-message">
          {formatBytes(job.sent)} of {formatBytes(job.size)} sent
        </p>
      ) : null}
      {job.message && job.phase !== 'uploading' ? <p className="job-message">{job.message}</p> : null}
      {job.error ? (
        <p className="error job-message" role="alert">
          {job.error}
        </p>
      ) : null}
      {job.log.length > 0 ? (
        <details>
          <summary>Events ({job.log.length})</summary>
          <ol className="job-log">
            {job.log.map((line) => (
              <li key={`${line.offset}-${line.text}`} className={`tone-${line.tone}`}>
                {line.text}
              </li>
            ))}
          </ol>
        </details>
      ) : null}
      <div className="job-actions">
        {!terminal ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : (
          <button type="button" onClick={onDismiss}>
            Dismiss
          </button>
        )}
      </div>
    </li>
  );
}

export function UploadPage({ tenantId }: { tenantId: string }) {
  const id = useId();
  const [jobs, dispatch] = useReducer(reducer, tenantId, restore);
  const [profiles, setProfiles] = useState<Search.SearchableProfile[]>([]);
  const [profile, setProfile] = useState('');
  const [dragging, setDragging] = useState(false);
  const [notice, setNotice] = useState<string | undefined>();
  const jobsRef = useRef(jobs);
  jobsRef.current = jobs;
  const transfers = useRef(new Map<string, Transfer<unknown>>());
  const followers = useRef(new Map<string, () => void>());
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    api.profiles(tenantId).then(
      (answer) => setProfiles(answer.profiles),
      () => setProfiles([]),
    );
  }, [tenantId]);

  useEffect(() => {
    try {
      sessionStorage.setItem(storageKey(tenantId), JSON.stringify(jobs));
    } catch {
      // storage full or refused: the jobs stay for this page's life
    }
  }, [jobs, tenantId]);

  const update = useCallback((key: string, change: (job: Job) => Job) => {
    dispatch({ type: 'update', key, update: change });
  }, []);

  const follow = useCallback(
    (key: string, jobId: string) => {
      if (followers.current.has(key)) return;
      const current = () => jobsRef.current.find((job) => job.key === key);
      const stop = followJob(jobId, {
        lastOffset: () => current()?.lastOffset ?? -1,
        finished: () => {
          const job = current();
          return !job || isTerminal(job.phase);
        },
        onFrame: (frame) => {
          // Applied to the ref at once too, so `finished` and `lastOffset` see it before React renders.
          const job = current();
          if (job) jobsRef.current = jobsRef.current.map((j) => (j.key === key ? applyFrame(j, frame) : j));
          update(key, (j) => applyFrame(j, frame));
        },
        onStatus: (status) => {
          jobsRef.current = jobsRef.current.map((j) => (j.key === key ? applyStatus(j, status) : j));
          update(key, (j) => applyStatus(j, status));
        },
        onStream: (state) => update(key, (j) => ({ ...j, stream: state })),
      });
      followers.current.set(key, stop);
    },
    [update],
  );

  // Follow every unfinished job (restored ones included); stop following when the page goes.
  useEffect(() => {
    for (const job of jobs) if (job.jobId && !isTerminal(job.phase)) follow(job.key, job.jobId);
  }, [jobs, follow]);
  useEffect(() => {
    const running = followers.current;
    const sending = transfers.current;
    return () => {
      for (const stop of running.values()) stop();
      for (const transfer of sending.values()) transfer.abort();
    };
  }, []);

  const start = (files: FileList | File[]) => {
    setNotice(undefined);
    for (const file of Array.from(files)) {
      if (file.size === 0) {
        setNotice(`${file.name} is empty and was not uploaded.`);
        continue;
      }
      const key = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const route = file.size > PRESIGNED_ABOVE ? 'presigned' : 'form';
      dispatch({ type: 'add', job: newJob(key, file, route) });
      const onProgress = (sent: number) => update(key, (job) => ({ ...job, sent }));
      const upload = route === 'presigned' ? uploadPresigned : uploadForm;
      const transfer = upload(file, tenantId, profile || undefined, onProgress);
      transfers.current.set(key, transfer);
      transfer.done.then(
        (submitted) => {
          transfers.current.delete(key);
          update(key, (job) => ({ ...job, jobId: submitted.job_id, phase: 'queued', sent: job.size }));
        },
        (error: Error) => {
          transfers.current.delete(key);
          const message = error instanceof ApiError ? error.message : String(error);
          update(key, (job) => ({ ...job, phase: 'failed', error: message }));
        },
      );
    }
  };

  const cancel = async (job: Job) => {
    const transfer = transfers.current.get(job.key);
    if (transfer) {
      transfer.abort();
      return;
    }
    if (!job.jobId) return;
    try {
      await api.cancelJob(job.jobId);
      update(job.key, (j) => ({ ...j, message: 'Cancellation requested' }));
    } catch (error) {
      update(job.key, (j) => ({ ...j, message: (error as Error).message }));
    }
  };

  const dismiss = (job: Job) => {
    followers.current.get(job.key)?.();
    followers.current.delete(job.key);
    dispatch({ type: 'remove', key: job.key });
  };

  const active = jobs.filter((job) => !isTerminal(job.phase)).length;

  return (
    <section aria-labelledby={`${id}-title`} className="page">
      <h1 id={`${id}-title`} tabIndex={-1}>
        Upload
      </h1>
      <p className="lead">
        Documents (Markdown, text, HTML, PDF) and code are indexed for search and added to the knowledge
        graph. Files over {formatBytes(PRESIGNED_ABOVE)} go straight to storage.
      </p>
      <div className="upload-controls">
        <div className="field-row">
          <label htmlFor={`${id}-profile`}>Profile</label>
          <select id={`${id}-profile`} value={profile} onChange={(event) => setProfile(event.target.value)}>
            <option value="">Chosen by file extension</option>
            {profiles.map((p) => (
              <option key={p.profile_name} value={p.profile_name}>
                {p.profile_name} ({p.type})
              </option>
            ))}
          </select>
        </div>
      </div>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the drop zone only adds dropping; its input and button are the keyboard path */}
      <div
        className={`dropzone${dragging ? ' dragging' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          if (event.dataTransfer.files.length > 0) start(event.dataTransfer.files);
        }}
      >
        <p>Drop files here, or</p>
        <label htmlFor={`${id}-files`} className="button primary">
          Choose files
        </label>
        <input
          ref={inputRef}
          id={`${id}-files`}
          className="file-input"
          type="file"
          multiple
          onChange={(event) => {
            if (event.target.files?.length) start(event.target.files);
            event.target.value = '';
          }}
        />
      </div>
      {notice ? (
        <p className="error" role="alert">
          {notice}
        </p>
      ) : null}
      <h2 className="section-title">
        Jobs{' '}
        <span className="muted" aria-live="polite">
          {jobs.length === 0 ? '' : active > 0 ? `(${active} in progress)` : '(all done)'}
        </span>
      </h2>
      {jobs.length === 0 ? (
        <p className="hint">No uploads yet in this tab.</p>
      ) : (
        <ul className="jobs">
          {jobs.map((job) => (
            <JobCard key={job.key} job={job} onCancel={() => cancel(job)} onDismiss={() => dismiss(job)} />
          ))}
        </ul>
      )}
      {jobs.some((job) => job.phase === 'complete') ? (
        <p>
          <Link href={`/search?tenant=${encodeURIComponent(tenantId)}`}>Search what you uploaded</Link>
        </p>
      ) : null}
    </section>
  );
}
