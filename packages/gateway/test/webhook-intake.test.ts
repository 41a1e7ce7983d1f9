import { InMemoryUpdateLog } from '@tessera/testing/fakes';
import { describe, expect, it } from 'vitest';
import { acceptWebhook, chatOf, type UpdateQueue } from '../src/aws';

const update = (id: number, chat = 42) => ({
  update_id: id,
  message: { message_id: 1, date: 0, chat: { id: chat, type: 'private' }, from: { id: chat }, text: 'hi' },
});

function intake() {
  const sent: { update: Record<string, unknown>; group: string; dedup: string }[] = [];
  let failSends = 0;
  const queue: UpdateQueue = {
    async send(u, group, dedup) {
      if (failSends-- > 0) throw new Error('queue unavailable');
      sent.push({ update: u, group, dedup });
    },
  };
  const deps = { log: new InMemoryUpdateLog(), queue, secret: 's3cret', now: Date.now };
  return { deps, sent, failNextSend: () => (failSends = 1) };
}

describe('acceptWebhook', () => {
  it('refuses a request without the secret, or with a wrong one, and queues nothing', async () => {
    const { deps, sent } = intake();
    const body = JSON.stringify(update(1));
    expect(await acceptWebhook(deps, { body })).toMatchObject({ status: 401 });
    expect(await acceptWebhook(deps, { body, secretHeader: 'wrong' })).toMatchObject({ status: 401 });
    expect(await acceptWebhook(deps, { body, secretHeader: 's3cret ' })).toMatchObject({ status: 401 });
    expect(sent).toEqual([]);
    expect(deps.log.states.size).toBe(0);
  });

  it('queues an update by its chat once; a repeated delivery is answered, not queued again', async () => {
    const { deps, sent } = intake();
    const body = JSON.stringify(update(7, 99));
    expect(await acceptWebhook(deps, { body, secretHeader: 's3cret' })).toEqual({
      status: 200,
      body: 'queued',
    });
    expect(await acceptWebhook(deps, { body, secretHeader: 's3cret' })).toEqual({
      status: 200,
      body: 'duplicate',
    });
    expect(sent).toEqual([{ update: update(7, 99), group: '99', dedup: '7' }]);
  });

  it('queues again an update whose first delivery failed before it was queued', async () => {
    const { deps, sent, failNextSend } = intake();
    const body = JSON.stringify(update(8));
    failNextSend();
    await expect(acceptWebhook(deps, { body, secretHeader: 's3cret' })).rejects.toThrow('queue unavailable');
    expect(await acceptWebhook(deps, { body, secretHeader: 's3cret' })).toEqual({
      status: 200,
      body: 'queued',
    });
    expect(sent).toHaveLength(1);
  });

  it('answers 400 to a body that is no update', async () => {
    const { deps } = intake();
    for (const body of ['', 'nope', '{}', '{"update_id": -1}', '{"update_id": "1"}', 'null']) {
      expect((await acceptWebhook(deps, { body, secretHeader: 's3cret' })).status).toBe(400);
    }
  });

  it('groups by the chat of whatever the update carries', () => {
    expect(chatOf(update(1, 5))).toBe('5');
    expect(chatOf({ update_id: 1, callback_query: { from: { id: 6 }, message: { chat: { id: 7 } } } })).toBe(
      '7',
    );
    expect(chatOf({ update_id: 1, inline_query: { from: { id: 8 } } })).toBe('8');
    expect(chatOf({ update_id: 1 })).toBe('updates');
  });
});
