import { describe, expect, it } from 'vitest';
import { OutboundLoop } from '../src/index';

describe('OutboundLoop', () => {
  it('sends drained messages, retries a failed send on later ticks, drops it after 3 failures', async () => {
    const batches: unknown[][] = [
      [
        { chat_id: '1', text: 'a' },
        { chat_id: 2, text: 'b' },
      ],
      [],
      [],
      [],
    ];
    const sent: string[] = [];
    let failB = 5;
    const loop = new OutboundLoop({
      drain: async () => batches.shift() ?? [],
      send: async (chat, text) => {
        if (text === 'b' && failB-- > 0) throw new Error('Bot API refused');
        sent.push(`${chat}:${text}`);
      },
      pollMs: 10,
    });
    await loop.tick();
    expect(sent).toEqual(['1:a']);
    expect(loop.retry).toEqual([{ chat_id: '2', text: 'b', failures: 1 }]);
    await loop.tick();
    expect(loop.retry).toEqual([{ chat_id: '2', text: 'b', failures: 2 }]);
    await loop.tick();
    expect(loop.retry).toEqual([]);
    expect(loop.counts).toEqual({ sent: 1, malformed: 0, failed: 1 });
  });

  it('drops messages without chat_id or text at once, and survives a drain that fails', async () => {
    const batches: unknown[][] = [
      [{ text: 'no chat' }, { chat_id: '1' }, null, 'junk', { chat_id: '', text: 'x' }],
    ];
    const sent: string[] = [];
    const loop = new OutboundLoop({
      drain: async () => {
        const next = batches.shift();
        if (!next) throw new Error('runtime down');
        return next;
      },
      send: async (chat, text) => {
        sent.push(`${chat}:${text}`);
      },
      pollMs: 10,
    });
    await loop.tick();
    await loop.tick();
    expect(sent).toEqual([]);
    expect(loop.counts.malformed).toBe(5);
    expect(loop.retry).toEqual([]);
  });
});
