/** Reasons for failed HTTP calls to model servers and sidecars, in words an operator can act on. */

export function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** undici reports "fetch failed" and keeps the useful part (e.g. "connect ECONNREFUSED ...") in `cause`. */
export function networkMessage(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  while (current instanceof Error && current.cause !== undefined) {
    current = current.cause;
    // Happy-eyeballs connects fail with an AggregateError whose own message is empty.
    const inner =
      current instanceof AggregateError && current.errors.length > 0 ? current.errors[0] : current;
    if (inner instanceof Error && inner.message) message = inner.message;
  }
  return message;
}
