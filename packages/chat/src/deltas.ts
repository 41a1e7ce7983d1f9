/**
 * The text deltas of one streamed answer: what the answering agent's LLM writes reaches the client as it
 * arrives (the run's `onText` sink), one write at a time and in order, and once the run is over the rest of
 * the answer follows, so the client's text is the answer that was stored and returned.
 */
import type { TextSink } from '@tessera/agents';
import { log } from '@tessera/core';
import { pieces } from './answer';

export class TextDeltas {
  private sent = '';
  private writes: Promise<void> = Promise.resolve();
  private ended = false;

  /** `write` sends one delta to the client (a chunk frame, an AG-UI event). */
  constructor(private readonly write: (delta: string) => Promise<void>) {}

  /** The sink a run publishes its answer's text into. */
  readonly sink: TextSink = (delta) => {
    if (delta === '' || this.ended) return;
    this.sent += delta;
    this.writes = this.writes.then(() => this.write(delta));
  };

  /** Whether the run streamed any text. */
  get streamed(): boolean {
    return this.sent !== '';
  }

  /**
   * Resolves once every delta published so far was written; later ones are dropped (a failed run's call
   * that has not stopped yet).
   */
  end(): Promise<void> {
    this.ended = true;
    return this.writes;
  }

  /**
   * The deltas that complete `content` (the answer derived from the run's result) after what was streamed:
   * all of it in pieces when nothing was, its remainder when the stream was its beginning (a coding agent's
   * files after its explanation), nothing when the stream was all of it.
   */
  rest(content: string): string[] {
    if (!this.streamed) return pieces(content);
    const shown = this.sent.trim();
    if (content.startsWith(shown)) return pieces(content.slice(shown.length));
    // Never expected: the answer is derived from the very text that streamed.
    log.warn('a streamed answer differs from the answer derived from its result', {
      streamed: this.sent.length,
      answer: content.length,
    });
    return [];
  }
}
