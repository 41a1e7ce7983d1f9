/**
 * Reading SSE streams in tests: a task's events until its terminal one (`readEvents`), or every frame with
 * its id, retry hint and comments (`readStream`).
 */

// biome-ignore lint/suspicious/noExplicitAny: events are JSON whose fields tests assert one by one
export type StreamEvent = Record<string, any>;

const terminal = (event: StreamEvent) =>
  event.type === 'complete' ||
  event.type === 'error' ||
  (event.type === 'status' && event.state === 'cancelled');

export async function readEvents(url: string, timeoutMs = 60_000): Promise<StreamEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const events: StreamEvent[] = [];
  try {
    const response = await fetch(url, { signal: controller.signal });
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
    }
    const reader = response.body!.getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += Buffer.from(value).toString();
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        for (const line of block.split('\n')) {
          if (!line.startsWith('data: ')) continue;
          const event = JSON.parse(line.slice(6)) as StreamEvent;
          events.push(event);
          if (terminal(event)) {
            controller.abort();
            return events;
          }
        }
        cut = buffer.indexOf('\n\n');
      }
    }
  } catch (error) {
    if (controller.signal.aborted && events.some(terminal)) return events;
    throw new Error(`${url}: ${(error as Error).message}; events so far: ${JSON.stringify(events)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** One SSE frame as sent. */
export interface Frame {
  id?: string;
  // biome-ignore lint/suspicious/noExplicitAny: frames are JSON whose fields the tests assert one by one
  data?: any;
  comment?: string;
  retry?: string;
}

/** Reads an SSE stream until it ends or `until` says stop; frames in order. */
export async function readStream(
  url: string,
  options: {
    headers?: Record<string, string>;
    until?: (frames: Frame[]) => boolean;
    onFrame?: (f: Frame) => void;
  } = {},
) {
  const controller = new AbortController();
  const response = await fetch(url, { headers: options.headers, signal: controller.signal });
  const frames: Frame[] = [];
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return {
      status: response.status,
      frames,
      body: (await response.json()) as { detail: { loc: string[] }[] },
    };
  }
  const reader = response.body!.getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += Buffer.from(value).toString();
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const frame: Frame = {};
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) frame.id = line.slice(4);
          else if (line.startsWith('retry: ')) frame.retry = line.slice(7);
          else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
          else if (line.startsWith(': ')) frame.comment = line.slice(2);
        }
        frames.push(frame);
        options.onFrame?.(frame);
        cut = buffer.indexOf('\n\n');
      }
      if (options.until?.(frames)) {
        controller.abort();
        break;
      }
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
  }
  return { status: response.status, frames, body: undefined };
}
