/**
 * Harness keys (document 3, "Authentication"): the web server holds no key of its own. For a tenant's first
 * run it mints a key for that tenant (`POST /admin/harness/keys` `{tenant_id, ttl}` → 201 `{key_id, key,
 * tenant_id, expires_at}`), sends the tenant's runs with it, mints a replacement once less than half the ttl
 * remains (one mint at a time per tenant: concurrent callers share it), and revokes its unexpired keys
 * (`DELETE /admin/harness/keys/{key_id}`) when it stops. A killed server leaves its keys to expire.
 */
import { z } from 'zod';

/** The mint route's answer (clarifications, "Chat, conversations, AG-UI, harness keys"). */
export const MintedKey = z.object({
  key_id: z.string().min(1),
  key: z.string().min(1),
  tenant_id: z.string(),
  expires_at: z.string().meta({ description: 'ISO 8601.' }),
});
export type MintedKey = z.infer<typeof MintedKey>;

interface HeldKey {
  keyId: string;
  key: string;
  tenantId: string;
  /** Epoch ms; never later than the mint's start plus the ttl, whatever the runtime's clock says. */
  expiresAt: number;
}

/** A mint the runtime refused (its status and `detail`), or a runtime that did not answer (status 502). */
export class HarnessKeyError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(`Harness key not minted: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
    this.name = 'HarnessKeyError';
  }
}

export interface HarnessKeysOptions {
  runtimeUrl: string;
  /** Seconds each key lives (`TESSERA_WEB_HARNESS_KEY_TTL_S`, 1..604800). */
  ttlSeconds: number;
  now?: () => number;
  fetch?: typeof fetch;
  /** How long `revokeAll` waits for the runtime before leaving the rest to expire. */
  revokeTimeoutMs?: number;
}

export class HarnessKeys {
  readonly #base: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #fetch: typeof fetch;
  readonly #revokeTimeoutMs: number;
  /** The key each tenant's runs go with. */
  readonly #current = new Map<string, HeldKey>();
  /** The mint under way per tenant, which concurrent callers share. */
  readonly #minting = new Map<string, Promise<HeldKey>>();
  /** Every key minted and not yet expired or revoked, replaced ones included: all are revoked at stop. */
  readonly #issued = new Map<string, HeldKey>();
  #stopped = false;

  constructor(options: HarnessKeysOptions) {
    if (!Number.isInteger(options.ttlSeconds) || options.ttlSeconds < 1 || options.ttlSeconds > 604_800)
      throw new RangeError(`Harness key ttl must be 1 to 604800 seconds, got ${options.ttlSeconds}`);
    this.#base = options.runtimeUrl.replace(/\/+$/, '');
    this.#ttlMs = options.ttlSeconds * 1000;
    this.#now = options.now ?? Date.now;
    this.#fetch = options.fetch ?? fetch;
    this.#revokeTimeoutMs = options.revokeTimeoutMs ?? 5000;
  }

  /** Keys minted and neither expired nor revoked. */
  get outstanding(): number {
    this.#forgetExpired();
    return this.#issued.size;
  }

  /**
   * The key for a run of `tenantId`: the held one while at least half its ttl remains, else a new one. While
   * a replacement is being minted for a key that is still valid, a failed mint falls back to that key.
   */
  async keyFor(tenantId: string): Promise<string> {
    if (this.#stopped) throw new HarnessKeyError(503, 'The web server is stopping');
    const held = this.#current.get(tenantId);
    const now = this.#now();
    if (held && held.expiresAt - now >= this.#ttlMs / 2) return held.key;
    let mint = this.#minting.get(tenantId);
    if (!mint) {
      mint = this.#mint(tenantId).finally(() => this.#minting.delete(tenantId));
      this.#minting.set(tenantId, mint);
    }
    try {
      return (await mint).key;
    } catch (error) {
      if (held && held.expiresAt > this.#now()) return held.key;
      throw error;
    }
  }

  /** Drops `key` after the runtime refused it (401: revoked or unknown), so the next run mints anew. */
  invalidate(tenantId: string, key: string): void {
    const held = this.#current.get(tenantId);
    if (held?.key !== key) return;
    this.#current.delete(tenantId);
    this.#issued.delete(held.keyId);
  }

  /** Revokes every unexpired key this server minted; keys the runtime does not revoke in time expire. */
  async revokeAll(): Promise<{ revoked: number; failed: number }> {
    this.#stopped = true;
    await Promise.allSettled(this.#minting.values());
    this.#forgetExpired();
    const keys = [...this.#issued.values()];
    this.#issued.clear();
    this.#current.clear();
    const signal = AbortSignal.timeout(this.#revokeTimeoutMs);
    const outcomes = await Promise.allSettled(
      keys.map(async (held) => {
        const answer = await this.#fetch(
          `${this.#base}/admin/harness/keys/${encodeURIComponent(held.keyId)}`,
          {
            method: 'DELETE',
            signal,
          },
        );
        await answer.body?.cancel();
        // An unknown key (404) is as revoked as it gets.
        if (!answer.ok && answer.status !== 404) throw new Error(`revoke answered ${answer.status}`);
      }),
    );
    const failed = outcomes.filter((outcome) => outcome.status === 'rejected').length;
    return { revoked: keys.length - failed, failed };
  }

  async #mint(tenantId: string): Promise<HeldKey> {
    const started = this.#now();
    let answer: Response;
    try {
      answer = await this.#fetch(`${this.#base}/admin/harness/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tenant_id: tenantId, ttl: this.#ttlMs / 1000 }),
      });
    } catch {
      throw new HarnessKeyError(502, 'Runtime unavailable');
    }
    const text = await answer.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: passed on as text
    }
    if (answer.status !== 201 && answer.status !== 200) {
      const detail = body && typeof body === 'object' && 'detail' in body ? body.detail : body;
      throw new HarnessKeyError(answer.status, detail);
    }
    const parsed = MintedKey.safeParse(body);
    if (!parsed.success) throw new HarnessKeyError(502, 'The runtime answered the mint with no usable key');
    const stated = Date.parse(parsed.data.expires_at);
    const held: HeldKey = {
      keyId: parsed.data.key_id,
      key: parsed.data.key,
      tenantId,
      expiresAt: Math.min(Number.isNaN(stated) ? Number.POSITIVE_INFINITY : stated, started + this.#ttlMs),
    };
    this.#issued.set(held.keyId, held);
    if (this.#stopped) {
      // A mint that lands during shutdown is revoked with the rest (revokeAll waited for it).
      return held;
    }
    this.#current.set(tenantId, held);
    return held;
  }

  #forgetExpired(): void {
    const now = this.#now();
    for (const [keyId, held] of this.#issued) if (held.expiresAt <= now) this.#issued.delete(keyId);
  }
}
