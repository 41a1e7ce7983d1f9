/**
 * What a completed run leaves after its answer (document 3: one memory for its tenant and agent; the wiki's
 * auto-filing), off the answer's path yet sure to happen: dispatch hands the run to the completed-run queue
 * (one SQS message, sent before the answer goes out, so a Lambda frozen after its answer loses nothing), and
 * the queue's worker writes the memory and files the run. Both writes are keyed by the run's id, so a
 * message delivered twice writes once.
 */
import { randomUUID } from 'node:crypto';
import { HttpError, log } from '@tessera/core';
import { type MemoriesDeps, rememberAll } from '@tessera/memories';
import { type GuardedTenant, incarnationOf, requireTenant } from '@tessera/tenancy';
import { answerText, autoFileAll, sourcesOf, type WikiDeps } from '@tessera/wiki';
import { z } from 'zod';
import { memoryOf } from './memory';

/** The largest message body sent: SQS takes 256 KiB; a larger result is sent as its answer text. */
export const MAX_MESSAGE_BYTES = 240 * 1024;

export const CompletedRunMessage = z.object({
  run_id: z.string().min(1),
  /** The tenant's canonical id. */
  tenant_id: z.string().min(1),
  /** Which creation of the tenant ran it: a tenant deleted and created again meanwhile gets none of it. */
  tenant_incarnation: z.string().optional(),
  agent_name: z.string().min(1),
  query: z.string(),
  /** What the filing rule reads of the run's context: its tenant and its conversation turns, not their text. */
  context: z.record(z.string(), z.unknown()),
  result: z.record(z.string(), z.unknown()),
  /** Epoch milliseconds: the memory's time and the wiki session's. */
  completed_at: z.number(),
});
export type CompletedRunMessage = z.infer<typeof CompletedRunMessage>;

/** The port dispatch hands completed runs to. */
export interface CompletedRuns {
  /** Resolves once the run is handed over (queued), never once it is written. */
  send(message: CompletedRunMessage): Promise<void>;
}

/** What writing a completed run needs: the memories, and the wiki with an entity tagger for the filing. */
export interface RecordDeps {
  memories: MemoriesDeps;
  wiki?: WikiDeps;
  tag?: (text: string) => Promise<string[]>;
}

/**
 * The message of a completed run: its context cut to what the filing reads (a conversation's history is
 * counted, not sent), its result cut to its answer when the whole would not fit a message.
 */
export function completedRunMessage(
  run: Omit<CompletedRunMessage, 'run_id' | 'completed_at'>,
  now = Date.now(),
): CompletedRunMessage {
  const message = { ...run, context: compactContext(run.context), run_id: randomUUID(), completed_at: now };
  if (Buffer.byteLength(JSON.stringify(message)) <= MAX_MESSAGE_BYTES) return message;
  const compact = {
    answer: answerText(run.result).slice(0, 100_000),
    sources: sourcesOf(run.result).slice(0, 500),
  };
  return { ...message, result: compact };
}

/** The context fields the filing rule reads (turns), without the history's text. */
function compactContext(context: Record<string, unknown>): Record<string, unknown> {
  const turns = [context.history, context.messages].filter(Array.isArray).map((list) => list.length + 1);
  return {
    tenant_id: context.tenant_id,
    turns: Math.max(typeof context.turns === 'number' ? context.turns : 0, ...turns),
  };
}

/**
 * Writes what a completed run leaves: its memory (id = the run's id) and, when the wiki's rule holds, its
 * session (slug made of the run's id). Writing the same message again writes nothing more.
 */
export async function recordCompletedRun(deps: RecordDeps, message: CompletedRunMessage): Promise<void> {
  const [outcome] = await recordTenantRuns(deps, message.tenant_id, [message]);
  if (outcome) throw outcome;
}

/**
 * Writes the completed runs of one tenant: the tenant read once, the memories of the runs of its current
 * creation in one write, then their wiki filing in one more. Answers, per run, the error that kept it from being
 * written (undefined once written or left out on purpose).
 */
async function recordTenantRuns(
  deps: RecordDeps,
  tenantId: string,
  messages: readonly CompletedRunMessage[],
): Promise<(unknown | undefined)[]> {
  let current: CompletedRunMessage[];
  let guarded: GuardedTenant;
  try {
    guarded = await requireTenant(deps.memories.tenancy, tenantId);
    current = messages.filter((message) => {
      if (!message.tenant_incarnation || incarnationOf(guarded.record) === message.tenant_incarnation)
        return true;
      log.info('a completed run of a tenant since deleted and created again is not recorded', {
        tenant: message.tenant_id,
        run: message.run_id,
      });
      return false;
    });
    await rememberAll(
      deps.memories,
      guarded,
      current.map((message) => ({
        agentName: message.agent_name,
        content: memoryOf(message.query, message.result),
        once: { memoryId: message.run_id, createdAt: message.completed_at },
      })),
    );
  } catch (error) {
    return messages.map(() => error);
  }
  if (!deps.wiki || !deps.tag || current.length === 0) return messages.map(() => undefined);
  try {
    await autoFileAll(
      deps.wiki,
      current.map((message) => ({
        runId: message.run_id,
        completedAt: message.completed_at,
        tenant: guarded.tenant,
        guarded,
        agentName: message.agent_name,
        query: message.query,
        context: message.context,
        result: message.result,
      })),
      deps.tag,
    );
  } catch (error) {
    // The memories are written; another delivery writes them no more and files the runs.
    return messages.map((message) => (current.includes(message) ? error : undefined));
  }
  return messages.map(() => undefined);
}

/** A failure that another delivery cannot mend: the tenant is gone or being removed, the message is bad. */
const permanent = (error: unknown) =>
  error instanceof z.ZodError ||
  error instanceof SyntaxError ||
  (error instanceof HttpError && error.status < 500);

/**
 * The queue worker's batch: the runs of each tenant written together (`recordTenantRuns`); the ids of those
 * that failed and may succeed on another delivery are answered as batch item failures (SQS delivers them
 * again, then moves them to the dead-letter queue); a message that can never be written is logged and dropped.
 */
export async function recordCompletedRuns(
  deps: RecordDeps,
  records: readonly { messageId: string; body: string }[],
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failed: { itemIdentifier: string }[] = [];
  const settle = (messageId: string, error: unknown) => {
    if (error === undefined) return;
    if (permanent(error)) {
      log.warn('a completed run could not be recorded; dropped', {
        message_id: messageId,
        error: (error as Error).message,
      });
      return;
    }
    log.warn('a completed run could not be recorded; delivered again', { message: messageId, error });
    failed.push({ itemIdentifier: messageId });
  };
  const byTenant = new Map<string, { messageId: string; message: CompletedRunMessage }[]>();
  for (const record of records) {
    let message: CompletedRunMessage;
    try {
      message = CompletedRunMessage.parse(JSON.parse(record.body));
    } catch (error) {
      settle(record.messageId, error);
      continue;
    }
    const runs = byTenant.get(message.tenant_id) ?? [];
    runs.push({ messageId: record.messageId, message });
    byTenant.set(message.tenant_id, runs);
  }
  await Promise.all(
    [...byTenant].map(async ([tenantId, runs]) => {
      const outcomes = await recordTenantRuns(
        deps,
        tenantId,
        runs.map((run) => run.message),
      );
      for (const [i, run] of runs.entries()) settle(run.messageId, outcomes[i]);
    }),
  );
  return { batchItemFailures: failed };
}

/**
 * Completed runs written in this process without waiting: for a process that outlives its requests (tests
 * over fakes, a long-lived server), never a Lambda, whose wiring queues them.
 */
export class InProcessCompletedRuns implements CompletedRuns {
  constructor(private readonly deps: RecordDeps) {}

  async send(message: CompletedRunMessage): Promise<void> {
    void recordCompletedRun(this.deps, message).catch((error: unknown) =>
      log.warn('could not record a completed run', {
        tenant: message.tenant_id,
        agent: message.agent_name,
        error,
      }),
    );
  }
}
