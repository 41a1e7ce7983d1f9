/**
 * Moving files and following jobs: a file goes up as a multipart form through the web server, or, above
 * `PRESIGNED_ABOVE`, as a presigned PUT straight to storage, both with upload progress; then the job's event
 * stream is followed with `EventSource`. A dropped stream is resumed by the browser with `Last-Event-ID`; a
 * refused one (the runtime away: 502) is reopened here from the offset after the last event applied.
 */
import type { Events, Ingestion } from '@tessera/api';
import { ApiError, api, detailMessage, ingestionEventsUrl, uploadUrl } from '../api';
import { reportRuntime } from '../runtime-status';

/** Files larger than this take the presigned route (API gateways cap a request body near 6 MB). */
export const PRESIGNED_ABOVE = 5 * 1024 * 1024;

export interface Transfer<T> {
  done: Promise<T>;
  abort(): void;
}

type Submitted = Ingestion.Submitted | Ingestion.Presigned;

function send(
  method: string,
  url: string,
  body: Document | XMLHttpRequestBodyInit,
  headers: Record<string, string>,
  onProgress: (sent: number) => void,
): Transfer<{ status: number; text: string }> {
  const xhr = new XMLHttpRequest();
  const done = new Promise<{ status: number; text: string }>((resolve, reject) => {
    xhr.open(method, url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () => reject(new ApiError(0, 'The upload was interrupted (network error).'));
    xhr.onabort = () => reject(new ApiError(0, 'The upload was cancelled.'));
    xhr.send(body);
  });
  return { done, abort: () => xhr.abort() };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Posts `file` as `multipart/form-data` (`POST /ingestion/upload`); resolves with the queued job. */
export function uploadForm(
  file: File,
  tenantId: string,
  profile: string | undefined,
  onProgress: (sent: number) => void,
): Transfer<Submitted> {
  const form = new FormData();
  form.append('tenant_id', tenantId);
  if (profile) form.append('profile', profile);
  form.append('file', file, file.name);
  const transfer = send('POST', uploadUrl, form, {}, onProgress);
  return {
    abort: transfer.abort,
    done: transfer.done.then(({ status, text }) => {
      const body = parse(text);
      if (status === 502 && detailMessage(body, status) === 'Runtime unavailable') reportRuntime(false);
      if (status !== 202 && status !== 200) throw new ApiError(status, detailMessage(body, status));
      onProgress(file.size);
      return body as Submitted;
    }),
  };
}

/** Asks for a presigned PUT (`POST /ingestion/uploads`) and sends `file` straight to storage with it. */
export function uploadPresigned(
  file: File,
  tenantId: string,
  profile: string | undefined,
  onProgress: (sent: number) => void,
): Transfer<Submitted> {
  let inner: Transfer<{ status: number; text: string }> | undefined;
  let aborted = false;
  const done = (async () => {
    const presigned = await api.presign({
      tenant_id: tenantId,
      filename: file.name,
      size: file.size,
      ...(profile ? { profile } : {}),
      ...(file.type ? { content_type: file.type } : {}),
    });
    if (aborted) throw new ApiError(0, 'The upload was cancelled.');
    // The browser sets Content-Length itself, from the file.
    const headers = Object.fromEntries(
      Object.entries(presigned.upload.headers).filter(([name]) => name.toLowerCase() !== 'content-length'),
    );
    inner = send(presigned.upload.method, presigned.upload.url, file, headers, onProgress);
    const { status, text } = await inner.done;
    if (status < 200 || status >= 300) {
      const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
      throw new ApiError(status, `Storage refused the upload (${status}${code ? ` ${code}` : ''})`);
    }
    onProgress(file.size);
    return presigned;
  })();
  return {
    done,
    abort() {
      aborted = true;
      inner?.abort();
    },
  };
}

export interface FollowHandlers {
  /** Offset of the last event applied (-1 before any). */
  lastOffset(): number;
  /** True once the job reached an end: the stream is closed. */
  finished(): boolean;
  onFrame(frame: Events.StreamFrame): void;
  onStatus(status: Ingestion.JobStatus): void;
  onStream(state: 'open' | 'reconnecting' | 'ended'): void;
}

const RETRY_MS = [500, 1000, 2000, 4000, 8000];

/** Follows job `jobId`'s event stream until it ends; answers a function that stops following. */
export function followJob(jobId: string, handlers: FollowHandlers): () => void {
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let failures = 0;

  const stop = () => {
    stopped = true;
    source?.close();
    if (timer) clearTimeout(timer);
  };
  const end = () => {
    stop();
    handlers.onStream('ended');
  };
  /** Asks the status route how the job stands; ends following when it ended. */
  const settle = async () => {
    try {
      const status = await api.jobStatus(jobId);
      handlers.onStatus(status);
      if (handlers.finished()) end();
    } catch {
      // the runtime is away: the next attempt asks again
    }
  };

  const open = () => {
    if (stopped) return;
    const last = handlers.lastOffset();
    const current = new EventSource(ingestionEventsUrl(jobId, last >= 0 ? last + 1 : undefined));
    source = current;
    current.onopen = () => {
      reportRuntime(true);
      handlers.onStream('open');
    };
    current.onmessage = (event) => {
      failures = 0;
      let frame: Events.StreamFrame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      handlers.onFrame(frame);
      if (handlers.finished()) end();
      else if (frame.type === 'error' || frame.type === 'end') {
        // No queue for the task (it ended long ago), it stopped reporting, or its stream is over for good
        // (the browser would reconnect otherwise): its status says how it ended.
        current.close();
        void settle().then(() => {
          if (!stopped) retry();
        });
      }
    };
    current.onerror = () => {
      if (stopped || source !== current) return;
      failures++;
      handlers.onStream('reconnecting');
      if (current.readyState === EventSource.CLOSED) {
        // Refused (a 502 while the runtime is away, a 503): reopen from the last offset after a pause.
        void settle();
        retry();
      } else if (failures >= 3) {
        // The browser keeps resuming with Last-Event-ID; a stream that ends again and again without news
        // belongs to a job that ended meanwhile.
        void settle();
      }
    };
  };
  const retry = () => {
    if (stopped) return;
    source?.close();
    const delay = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!;
    timer = setTimeout(open, delay);
  };

  open();
  return stop;
}
