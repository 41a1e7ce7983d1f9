/**
 * The one sink of a server-sent event stream: the HTTP layer opens it (`sseRoute` in @tessera/http) and a
 * domain function that streams (the task events' `streamTask`) writes frames to it, neither knowing the other.
 */
export interface SseStream {
  /**
   * One frame: `data: <json>`, after an `id: <id>` line when an id is given and a `retry: <ms>` line when
   * `retryMs` is (how long a client that reconnects anyway waits first).
   */
  event(data: unknown, id?: number, retryMs?: number): Promise<void>;
  /** A comment line (`: heartbeat`), which keeps an idle connection open. */
  comment(text: string): Promise<void>;
  /** True once the client went away; frames written after it are dropped. */
  readonly closed: boolean;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}
