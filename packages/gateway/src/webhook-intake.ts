/**
 * The webhook's intake in AWS: a function URL Telegram posts each update to. It checks Telegram's secret-token
 * header, records the update id (a retry of an update already queued is answered, not queued again), and
 * hands the update to a FIFO queue grouped by chat, so one chat's updates are processed in order; it answers
 * at once, well within Telegram's wait. The worker reading the queue runs the bot on each update.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export type UpdateState = 'new' | 'pending' | 'queued';

/** Update ids seen: a conditional write records each once. */
export interface UpdateLog {
  /** Records the id: `new` the first time, else the state it was left in (`pending`: not queued yet). */
  claim(updateId: number, now: number): Promise<UpdateState>;
  markQueued(updateId: number): Promise<void>;
}

export interface UpdateQueue {
  /** Sends the update into the chat's group, deduplicated by its id. */
  send(update: Record<string, unknown>, groupId: string, deduplicationId: string): Promise<void>;
}

export interface IntakeDeps {
  log: UpdateLog;
  queue: UpdateQueue;
  secret: string;
  now: () => number;
}

export interface IntakeAnswer {
  status: number;
  body: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether the header carries the secret (compared in constant time). */
export function secretMatches(header: string | undefined, secret: string): boolean {
  return header !== undefined && timingSafeEqual(digest(header), digest(secret));
}

/** The chat an update belongs to (its queue group): the chat of whatever it carries, else its sender. */
export function chatOf(update: Record<string, unknown>): string {
  for (const value of Object.values(update)) {
    if (!value || typeof value !== 'object') continue;
    const item = value as {
      chat?: { id?: unknown };
      message?: { chat?: { id?: unknown } };
      from?: { id?: unknown };
    };
    const id = item.chat?.id ?? item.message?.chat?.id ?? item.from?.id;
    if (typeof id === 'number' || typeof id === 'string') return String(id);
  }
  return 'updates';
}

export async function acceptWebhook(
  deps: IntakeDeps,
  request: { secretHeader?: string; body?: string },
): Promise<IntakeAnswer> {
  if (!secretMatches(request.secretHeader, deps.secret)) return { status: 401, body: 'Unauthorized' };
  let update: Record<string, unknown>;
  try {
    update = JSON.parse(request.body ?? '') as Record<string, unknown>;
  } catch {
    return { status: 400, body: 'The body is not a JSON update' };
  }
  const id = update?.update_id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
    return { status: 400, body: 'The update has no update_id' };
  }
  const state = await deps.log.claim(id, deps.now());
  // Telegram sends an update again when its answer was late or lost: once queued, it is only answered.
  if (state === 'queued') return { status: 200, body: 'duplicate' };
  await deps.queue.send(update, chatOf(update), String(id));
  await deps.log.markQueued(id);
  return { status: 200, body: 'queued' };
}
