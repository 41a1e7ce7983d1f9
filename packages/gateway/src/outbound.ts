/**
 * Outbound delivery: every poll interval the drain route hands over the queued messages (each cleared by
 * the drain), and each is sent. A failed send waits in an in-memory retry buffer for the next ticks and is
 * dropped with an error after 3 failed sends; a message without `chat_id` or `text` is dropped at once. The
 * buffer is lost when the process stops (document 3).
 */
import { log } from '@tessera/core';

export const SEND_ATTEMPTS = 3;

export interface Pending {
  chat_id: string;
  text: string;
  failures: number;
}

export interface OutboundOptions {
  drain: () => Promise<unknown[] | undefined>;
  send: (chatId: string, text: string) => Promise<void>;
  pollMs: number;
}

export class OutboundLoop {
  readonly retry: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Messages sent, dropped as malformed, dropped after their attempts. */
  readonly counts = { sent: 0, malformed: 0, failed: 0 };

  constructor(private readonly options: OutboundOptions) {}

  start(): void {
    const loop = async () => {
      if (this.stopped) return;
      this.running = this.tick();
      await this.running;
      if (!this.stopped) this.timer = setTimeout(loop, this.options.pollMs);
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One tick: the messages waiting for a retry, then the drained ones, in order. */
  async tick(): Promise<void> {
    const due = this.retry.splice(0);
    let drained: unknown[] | undefined;
    try {
      drained = await this.options.drain();
    } catch (error) {
      log.warn('outbound drain failed', { error: (error as Error).message });
    }
    for (const item of drained ?? []) {
      const message = item as { chat_id?: unknown; text?: unknown } | null;
      const chat = message?.chat_id;
      const text = message?.text;
      if (
        (typeof chat !== 'string' && typeof chat !== 'number') ||
        chat === '' ||
        typeof text !== 'string' ||
        !text
      ) {
        this.counts.malformed++;
        log.warn('outbound message dropped: it lacks chat_id or text', {
          message: JSON.stringify(item).slice(0, 200),
        });
        continue;
      }
      due.push({ chat_id: String(chat), text, failures: 0 });
    }
    for (const message of due) {
      try {
        await this.options.send(message.chat_id, message.text);
        this.counts.sent++;
      } catch (error) {
        message.failures++;
        if (message.failures >= SEND_ATTEMPTS) {
          this.counts.failed++;
          log.error('outbound message dropped after failed sends', {
            chat_id: message.chat_id,
            attempts: message.failures,
            error: (error as Error).message,
          });
        } else {
          this.retry.push(message);
        }
      }
    }
  }
}
