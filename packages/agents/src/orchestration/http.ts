/**
 * Sub-agent calls over HTTP (document 3: the orchestrator calls `<agent url>/agents/{name}/process`). In the
 * unified runtime every agent's url is the runtime's own base URL, so the call goes through the real route.
 */
import { networkMessage } from '@tessera/core';
import type { ProcessContext } from '../agent';
import type { RegisteredAgent } from '../registry';

export type SubAgentOutcome =
  | { status: 'completed'; result: Record<string, unknown> }
  | { status: 'cancelled'; message: string }
  | { status: 'failed'; error: string; http_status?: number };

/** What an error answer says, in one line: `detail.message`, `detail` itself, or the status. */
function messageOf(status: number, body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  if (detail && typeof detail === 'object') {
    const { message, error } = detail as { message?: unknown; error?: unknown };
    if (typeof message === 'string') return typeof error === 'string' ? `${error}: ${message}` : message;
    return JSON.stringify(detail).slice(0, 500);
  }
  return `answered ${status}`;
}

export async function callSubAgent(
  entry: Pick<RegisteredAgent, 'name' | 'url' | 'timeout'>,
  query: string,
  context: ProcessContext,
  signal: AbortSignal,
): Promise<SubAgentOutcome> {
  const url = `${entry.url}/agents/${entry.name}/process`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: entry.name, query, context }),
      signal: AbortSignal.any([signal, AbortSignal.timeout(entry.timeout * 1000)]),
    });
  } catch (error) {
    if (signal.aborted) throw error;
    const timedOut = (error as Error).name === 'TimeoutError';
    return {
      status: 'failed',
      error: timedOut
        ? `${entry.name} did not answer within its timeout of ${entry.timeout} s`
        : `${entry.name} at ${url} did not answer: ${networkMessage(error)}`,
    };
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (!response.ok) {
    return {
      status: 'failed',
      error: `${entry.name} answered ${response.status}: ${messageOf(response.status, body)}`,
      http_status: response.status,
    };
  }
  const answer = body as { status?: string; result?: unknown; message?: string } | null;
  if (answer?.status === 'cancelled') return { status: 'cancelled', message: String(answer.message) };
  if (answer?.status !== 'completed' || typeof answer.result !== 'object' || answer.result === null) {
    return { status: 'failed', error: `${entry.name} answered something that is not an agent result` };
  }
  return { status: 'completed', result: answer.result as Record<string, unknown> };
}
