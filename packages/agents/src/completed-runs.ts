/**
 * What a completed run leaves after its answer (document 3: one memory for its tenant and agent; the wiki's
 * auto-filing), off the answer's path yet sure to happen: dispatch hands the run to the completed-run queue
 * (one SQS message, sent before the answer goes out, so a Lambda frozen after its answer loses nothing), and
 * the queue's worker writes the memory and files the run. Both writes are keyed by the run's id, so a
 * message delivered twice writes once.
 */
import { randomUUID } from 'node:crypto';
import { HttpError, log } from '@tessera/core';
import { type MemoriesDeps, remember } from '@tessera/memories';
import { incarnationOf, requireTenant } from '@tessera/tenancy';
import { answerText, autoFile, sourcesOf, type WikiDeps } from '@tessera/wiki';
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

/** The message of a completed run, its result cut to its answer when the whole would not fit a message. */
export function completedRunMessage(
  run: Omit<CompletedRunMessage, 'run_id' | 'completed_at'>,
  now = Date.now(),
): CompletedRunMessage {
  const message = { ...run, run_id: randomUUID(), completed_at: now };
  if (Buffer.byteLength(JSON.stringify(message)) <= MAX_MESSAGE_BYTES) return message;
  const compact = {
    answer: answerText(run.result).slice(0, 100_000),
    sources: sourcesOf(run.result).slice(0, 500),
  };
  return { ...message, context: compactContext(run.context), result: compact };
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
  const result = message.result;
  const guarded = await requireTenant(deps.memories.tenancy, message.tenant_id);
  if (message.tenant_incarnation && incarnationOf(guarded.record) !== message.tenant_incarnation) {
    log.info('a completed run of a tenant since deleted and created again is not recorded', {
      tenant: message.tenant_id,
      run: message.run_id,
    });
    return;
  }
  await remember(deps.memories, guarded, message.agent_name, memoryOf(message.query, result), {
    memoryId: message.run_id,
    createdAt: message.completed_at,
  });
  if (!deps.wiki || !deps.tag) return;
  await autoFile(
    deps.wiki,
    {
      runId: message.run_id,
      completedAt: message.completed_at,
      tenant: guarded.tenant,
      guarded,
      agentName: message.agent_name,
      query: message.query,
      context: message.context,
      result,
    },
    deps.tag,
  );
}

/** A failure that another delivery cannot mend: the tenant is gone or being removed, the message is bad. */
const permanent = (error: unknown) =>
  error instanceof z.ZodError ||
  error instanceof SyntaxError ||
  (error instanceof HttpError && error.status < 500);

/**
 * The queue worker's batch: each record written; the ids of those that failed and may succeed on another
 * delivery are answered as batch item failures (SQS delivers them again, then moves them to the dead-letter
 * queue); a message that can never be written is logged and dropped.
 */
export async function recordCompletedRuns(
  deps: RecordDeps,
  records: readonly { messageId: string; body: string }[],
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failed: { itemIdentifier: string }[] = [];
  await Promise.all(
    records.map(async (record) => {
      try {
        await recordCompletedRun(deps, CompletedRunMessage.parse(JSON.parse(record.body)));
      } catch (error) {
        if (permanent(error)) {
          log.warn('a completed run could not be recorded; dropped', {
            message_id: record.messageId,
            error: (error as Error).message,
          });
          return;
        }
        log.warn('a completed run could not be recorded; delivered again', {
          message: record.messageId,
          error,
        });
        failed.push({ itemIdentifier: record.messageId });
      }
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
