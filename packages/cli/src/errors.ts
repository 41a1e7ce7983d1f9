/** The CLI's one error path: every failure becomes a one-line reason on stderr and exit code 1. */
import { type Output, stdio } from './output';

/** A failure the user can act on; its message is the whole report. */
export class CliError extends Error {
  /** `status`: the HTTP status of the answer that refused the request, when there was one. */
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The one line printed for `error`; anything unexpected keeps its message, never a stack trace. */
export function errorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.replace(/\s*\n\s*/g, ' ').trim();
  if (error instanceof CliError) return line;
  return `Unexpected error: ${line || (error instanceof Error ? error.name : 'unknown')}`;
}

export function handleError(error: unknown, output: Output = stdio): never {
  output.err(errorReason(error));
  process.exit(1);
}

/** Ends a command: its exit code on success, the one error path otherwise. */
export async function settle(run: Promise<number>, output: Output = stdio): Promise<void> {
  try {
    process.exitCode = await run;
  } catch (error) {
    handleError(error, output);
  }
}
