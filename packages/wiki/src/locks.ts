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

/**
 * Runs `task` holding the locks of every slug, taken one after another in slug order: two holders of
 * overlapping sets, in any processes, never wait on each other.
 */
export function holdAll<T>(locks: PageLocks, scope: string, slugs: Iterable<string>, task: () => Promise<T>) {
  const sorted = [...new Set(slugs)].sort();
  return sorted.reduceRight<() => Promise<T>>((inner, slug) => () => locks.hold(scope, slug, inner), task)();
}
