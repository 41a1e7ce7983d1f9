import { describe, expect, it } from 'vitest';
import { KeyedSerializer, mapBounded, withDeadline } from '../src';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedSerializer', () => {
  it('runs tasks of one key one at a time in call order, other keys alongside', async () => {
    const serializer = new KeyedSerializer();
    const events: string[] = [];
    const task = (name: string, ms: number) => async () => {
      events.push(`start ${name}`);
      await tick(ms);
      events.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      serializer.run('a', task('a1', 20)),
      serializer.run('a', task('a2', 1)),
      serializer.run('b', task('b1', 5)),
    ]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(events.indexOf('start a2')).toBeGreaterThan(events.indexOf('end a1'));
    expect(events.indexOf('start b1')).toBeLessThan(events.indexOf('end a1'));
  });

  it('goes on with the next task after one fails', async () => {
    const serializer = new KeyedSerializer();
    const failing = serializer.run('a', async () => {
      throw new Error('boom');
    });
    const next = serializer.run('a', async () => 'next');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });
});

describe('withDeadline', () => {
  it('answers the value when it comes first and rejects when the deadline does', async () => {
    await expect(withDeadline(Promise.resolve(1), 50, () => new Error('late'))).resolves.toBe(1);
    await expect(withDeadline(new Promise(() => undefined), 10, () => new Error('late'))).rejects.toThrow(
      'late',
    );
  });
});

describe('mapBounded', () => {
  it('keeps at most the limit running and answers in item order', async () => {
    let running = 0;
    let most = 0;
    const results = await mapBounded([5, 1, 3, 2], 2, async (ms, i) => {
      running++;
      most = Math.max(most, running);
      await tick(ms);
      running--;
      return i;
    });
    expect(results).toEqual([0, 1, 2, 3]);
    expect(most).toBe(2);
  });
});
