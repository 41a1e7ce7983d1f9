/** An in-memory configuration store with the conditional append of the DynamoDB adapter. */
import type { ConfigStore, ConfigVersion } from '@tessera/config';

const copy = <T>(value: T): T => structuredClone(value);

export class InMemoryConfigStore implements ConfigStore {
  /** Versions by tenant and kind, oldest first. */
  private readonly records = new Map<string, Map<string, ConfigVersion[]>>();

  private versions(tenantId: string, kind: string): ConfigVersion[] {
    let kinds = this.records.get(tenantId);
    if (!kinds) {
      kinds = new Map();
      this.records.set(tenantId, kinds);
    }
    let versions = kinds.get(kind);
    if (!versions) {
      versions = [];
      kinds.set(kind, versions);
    }
    return versions;
  }

  async latest(tenantId: string, kind: string) {
    const versions = this.versions(tenantId, kind);
    const head = versions.reduce<ConfigVersion | undefined>(
      (best, entry) => (!best || entry.version > best.version ? entry : best),
      undefined,
    );
    return head && copy(head);
  }

  async get(tenantId: string, kind: string, version: number) {
    const entry = this.versions(tenantId, kind).find((candidate) => candidate.version === version);
    return entry && copy(entry);
  }

  async history(tenantId: string, kind: string, limit: number) {
    return [...this.versions(tenantId, kind)]
      .sort((a, b) => b.version - a.version)
      .slice(0, limit)
      .map(copy);
  }

  async append(tenantId: string, kind: string, entry: ConfigVersion) {
    const versions = this.versions(tenantId, kind);
    if (versions.some((candidate) => candidate.version === entry.version)) return false;
    versions.push(copy(entry));
    return true;
  }

  async purgeTenant(tenantId: string) {
    const kinds = this.records.get(tenantId);
    this.records.delete(tenantId);
    return [...(kinds?.values() ?? [])].reduce((sum, versions) => sum + versions.length, 0);
  }
}
