/** Schedules: what is refused, the EventBridge expressions, and next slots. */
import { describe, expect, it } from 'vitest';
import { eventBridgeExpression, nextSlot, parseSchedule } from '../src/index';

const refusal = (schedule: string) => {
  try {
    parseSchedule(schedule);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe('parseSchedule', () => {
  it('takes 5-field crons and rates of at least a minute', () => {
    for (const ok of [
      '* * * * *',
      '0 9 * * MON-FRI',
      '*/15 8-18 1,15 * ?',
      '30 2 * JAN-MAR 0',
      'rate(1 minute)',
      'rate(5 minutes)',
      'rate(2 hours)',
      'rate(1 day)',
    ]) {
      expect(refusal(ok), ok).toBeUndefined();
    }
  });

  it('refuses 6 fields (seconds), both day fields, rate(0 minutes), bad steps and values', () => {
    expect(refusal('*/30 * * * * *')).toMatch(/5 fields .* has 6: seconds/);
    expect(refusal('0 0 12 * * ? 2030')).toMatch(/has 7/);
    expect(refusal('0 9 1 * MON')).toMatch(/both day-of-month and day-of-week/);
    expect(refusal('rate(0 minutes)')).toMatch(/at least one minute/);
    expect(refusal('rate(30 seconds)')).toMatch(/no rate/);
    expect(refusal('rate(5 weeks)')).toMatch(/no rate/);
    expect(refusal('*/0 * * * *')).toMatch(/step/);
    expect(refusal('60 * * * *')).toMatch(/minute 60 is outside 0-59/);
    expect(refusal('0 24 * * *')).toMatch(/hour/);
    expect(refusal('0 0 0 * *')).toMatch(/day-of-month 0/);
    expect(refusal('0 0 * 13 *')).toMatch(/month 13/);
    expect(refusal('0 0 * * 8')).toMatch(/day-of-week 8/);
    expect(refusal('5-1 * * * *')).toMatch(/backwards/);
    expect(refusal('* * * *')).toMatch(/neither/);
    expect(refusal('')).toMatch(/neither/);
    expect(refusal('@hourly')).toMatch(/neither/);
  });
});

describe('eventBridgeExpression', () => {
  it('writes 6-field crons with one day field open and days as names', () => {
    expect(eventBridgeExpression('* * * * *')).toBe('cron(* * * * ? *)');
    expect(eventBridgeExpression('0 9 * * MON-FRI')).toBe('cron(0 9 ? * MON,TUE,WED,THU,FRI *)');
    expect(eventBridgeExpression('0 9 * * 0')).toBe('cron(0 9 ? * SUN *)');
    expect(eventBridgeExpression('0 9 * * 7')).toBe('cron(0 9 ? * SUN *)');
    expect(eventBridgeExpression('0 9 * * 5-7')).toBe('cron(0 9 ? * SUN,FRI,SAT *)');
    expect(eventBridgeExpression('0 9 * * */2')).toBe('cron(0 9 ? * SUN,TUE,THU,SAT *)');
    expect(eventBridgeExpression('*/15 8-18 1,15 * *')).toBe('cron(*/15 8-18 1,15 * ? *)');
    expect(eventBridgeExpression('*/15 8-18 1,15 * ?')).toBe('cron(*/15 8-18 1,15 * ? *)');
  });

  it('writes rates as EventBridge spells them', () => {
    expect(eventBridgeExpression('rate(1 minutes)')).toBe('rate(1 minute)');
    expect(eventBridgeExpression('rate(5 minute)')).toBe('rate(5 minutes)');
    expect(eventBridgeExpression('rate(1 day)')).toBe('rate(1 day)');
  });
});

describe('nextSlot', () => {
  const t = (iso: string) => Date.parse(iso);

  it('counts rates from the job’s creation', () => {
    const created = t('2026-01-01T00:00:30Z');
    expect(nextSlot('rate(1 minute)', 'UTC', created, created)).toBe(t('2026-01-01T00:01:30Z'));
    expect(nextSlot('rate(1 minute)', 'UTC', created, t('2026-01-01T00:05:00Z'))).toBe(
      t('2026-01-01T00:05:30Z'),
    );
    expect(nextSlot('rate(2 hours)', 'UTC', created, t('2026-01-01T02:00:30Z'))).toBe(
      t('2026-01-01T04:00:30Z'),
    );
  });

  it('reads crons in the job’s time zone', () => {
    const after = t('2026-01-01T00:00:00Z');
    expect(nextSlot('* * * * *', 'UTC', 0, t('2026-01-01T00:00:10Z'))).toBe(t('2026-01-01T00:01:00Z'));
    expect(nextSlot('0 9 * * *', 'UTC', 0, after)).toBe(t('2026-01-01T09:00:00Z'));
    expect(nextSlot('0 9 * * *', 'Europe/Berlin', 0, after)).toBe(t('2026-01-01T08:00:00Z'));
    // 2026-01-01 is a Thursday: the next Monday is the 5th.
    expect(nextSlot('0 9 * * MON', 'UTC', 0, after)).toBe(t('2026-01-05T09:00:00Z'));
  });
});
