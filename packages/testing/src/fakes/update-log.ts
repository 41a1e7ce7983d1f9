/** The Telegram webhook's update log in memory: each id recorded once, as the conditional put does. */
import type { UpdateLog, UpdateState } from '@tessera/gateway/aws';

export class InMemoryUpdateLog implements UpdateLog {
  readonly states = new Map<number, 'pending' | 'queued'>();

  async claim(updateId: number): Promise<UpdateState> {
    const state = this.states.get(updateId);
    if (state) return state;
    this.states.set(updateId, 'pending');
    return 'new';
  }

  async markQueued(updateId: number): Promise<void> {
    this.states.set(updateId, 'queued');
  }
}
