/** Reads a task's SSE stream until its terminal event (complete, error or a cancelled status). */

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
