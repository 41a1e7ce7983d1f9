/**
 * The per-process cache of record heads. A read within the cache time is answered from memory; a write
 * through this process replaces the head with the version it wrote, so every route of the process sees it at
 * once; concurrent misses of one record share one store read.
 */
import type { ConfigVersion } from './store';

interface Entry {
  /** The newest version known, undefined while the record was never written. */
  head: ConfigVersion | undefined;
  readAt: number;
}

/** Records kept at most; beyond, the least recently stored goes (a bound on what many tenants can fill). */
const MAX_ENTRIES = 10_000;

export class ConfigCache {
  private readonly heads = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<ConfigVersion | undefined>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  static key(tenantId: string, kind: string): string {
    return `${tenantId}\u0000${kind}`;
  }

  /** The cached head of `key`, or the one `load` reads (shared by concurrent misses). */
  async read(
    key: string,
    load: () => Promise<ConfigVersion | undefined>,
  ): Promise<ConfigVersion | undefined> {
    const cached = this.heads.get(key);
    if (cached && this.now() - cached.readAt < this.ttlMs) return cached.head;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
      pending.then(
        (head) => this.remember(key, head),
        () => undefined,
      );
    }
    return pending;
  }

  /** Records `head` as the newest version of `key`, unless a newer one is known already. */
  remember(key: string, head: ConfigVersion | undefined): void {
    const known = this.heads.get(key)?.head;
    const fresh = { head: (known?.version ?? 0) > (head?.version ?? 0) ? known : head, readAt: this.now() };
    this.heads.delete(key);
    this.heads.set(key, fresh);
    if (this.heads.size > this.maxEntries) this.heads.delete(this.heads.keys().next().value!);
  }

  /** Forgets every record of a tenant (it was deleted). */
  forgetTenant(tenantId: string): void {
    for (const key of this.heads.keys()) if (key.startsWith(`${tenantId}\u0000`)) this.heads.delete(key);
  }
}
