/** The contract of the Telegram webhook's update log: one claim of an id is new, the rest see its state. */
import type { UpdateLog } from '@tessera/gateway/aws';
import { describe, expect, it } from 'vitest';

let next = Date.now() * 10;

export function updateLogContract(name: string, make: () => UpdateLog) {
  describe(`UpdateLog contract: ${name}`, () => {
    it('records an update id once, even under concurrent claims, and keeps whether it was queued', async () => {
      const log = make();
      const id = next++;
      const claims = await Promise.all(Array.from({ length: 10 }, () => log.claim(id, Date.now())));
      expect(claims.filter((c) => c === 'new')).toHaveLength(1);
      expect(claims.filter((c) => c === 'pending')).toHaveLength(9);
      await log.markQueued(id);
      expect(await log.claim(id, Date.now())).toBe('queued');
      expect(await log.claim(next++, Date.now())).toBe('new');
    });
  });
}
