/** The contract of `JobQueue`: messages arrive, delayed ones no sooner than their delay. */
import type { JobMessage, JobQueue } from '@tessera/ingestion';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

export interface JobQueueSubject {
  queue: JobQueue;
  /** The messages a consumer receives now (and deletes). */
  receive(): Promise<JobMessage[]>;
  /** Lets `ms` pass for the queue. */
  wait(ms: number): Promise<void>;
}

export function jobQueueContract(label: string, subject: () => JobQueueSubject): void {
  describe(`${label} (JobQueue contract)`, () => {
    it('delivers a message at once, and a delayed one only once its delay passed', async () => {
      const { queue, receive, wait } = subject();
      const now = unique('ingest_now');
      const later = unique('ingest_later');
      await queue.send({ job_id: later }, 2);
      await queue.send({ job_id: now });
      const first = (await receive()).map((message) => message.job_id);
      expect(first).toContain(now);
      expect(first).not.toContain(later);
      await wait(2500);
      expect((await receive()).map((message) => message.job_id)).toContain(later);
    });
  });
}
