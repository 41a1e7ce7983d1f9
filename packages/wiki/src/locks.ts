/**
 * Locks on one wiki page at a time: a read-modify-write of a page runs alone across every process. The
 * production locks are DynamoDB lease rows (dynamo-locks.ts); in one process a serializer orders the waiters
 * first, so they do not poll the table against one another.
 */
import { KeyedSerializer } from '@tessera/core';

export interface PageLocks {
  /** Runs `task` holding the lock of `(scope, slug)`. */
  hold<T>(scope: string, slug: string, task: () => Promise<T>): Promise<T>;
  /** Removes every lock row of a scope (a tenant's wiki schema). */
  purge(scope: string): Promise<void>;
}

/** Locks of one process only: the fakes' and unit tests' locks. */
export class ProcessPageLocks implements PageLocks {
  private readonly serializer = new KeyedSerializer();

  hold<T>(scope: string, slug: string, task: () => Promise<T>): Promise<T> {
    return this.serializer.run(`${scope}\u0000${slug}`, task);
  }

  async purge(): Promise<void> {}
}

/** The lock every session page is written under: one a batch of filings takes, not one a session. */
export const SESSIONS_LOCK = '#sessions';

/**
 * The lock a page is written under: its slug, except session pages, which share one (a session page is
 * written once, by its save; the lock only keeps two deliveries of one run's filing apart).
 */
export const lockOf = (slug: string) => (slug.startsWith('session_') ? SESSIONS_LOCK : slug);

/**
 * Runs `task` holding the locks of every slug's page (`lockOf`), taken one after another in lock order: two
 * holders of overlapping sets, in any processes, never wait on each other.
 */
export function holdAll<T>(locks: PageLocks, scope: string, slugs: Iterable<string>, task: () => Promise<T>) {
  const sorted = [...new Set([...slugs].map(lockOf))].sort();
  return sorted.reduceRight<() => Promise<T>>((inner, lock) => () => locks.hold(scope, lock, inner), task)();
}
