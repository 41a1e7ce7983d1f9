/** An in-memory profile store with the conditional append of the DynamoDB adapter. */
import type { ProfileStore, StoredProfile } from '@tessera/profiles';

const copy = <T>(value: T): T => structuredClone(value);

export class InMemoryProfileStore implements ProfileStore {
  /** Every version, by tenant then profile name, oldest first. */
  private readonly tenants = new Map<string, Map<string, StoredProfile[]>>();

  private profilesOf(tenantId: string): Map<string, StoredProfile[]> {
    let profiles = this.tenants.get(tenantId);
    if (!profiles) {
      profiles = new Map();
      this.tenants.set(tenantId, profiles);
    }
    return profiles;
  }

  async latest(tenantId: string, name: string) {
    const versions = this.profilesOf(tenantId).get(name) ?? [];
    const newest = versions.reduce<StoredProfile | undefined>(
      (best, profile) => (!best || profile.version > best.version ? profile : best),
      undefined,
    );
    return newest && copy(newest);
  }

  async versions(tenantId: string, name: string) {
    return [...(this.profilesOf(tenantId).get(name) ?? [])].sort((a, b) => b.version - a.version).map(copy);
  }

  async list(tenantId: string) {
    const names = [...this.profilesOf(tenantId).keys()].sort((a, b) => a.localeCompare(b));
    const newest = await Promise.all(names.map((name) => this.latest(tenantId, name)));
    return newest.filter((profile): profile is StoredProfile => profile !== undefined);
  }

  async append(profile: StoredProfile) {
    const profiles = this.profilesOf(profile.tenant_id);
    const versions = profiles.get(profile.profile_name) ?? [];
    if (versions.some((known) => known.version === profile.version)) return false;
    versions.push(copy(profile));
    profiles.set(profile.profile_name, versions);
    return true;
  }

  async remove(tenantId: string, name: string) {
    const profiles = this.profilesOf(tenantId);
    const removed = profiles.get(name)?.length ?? 0;
    profiles.delete(name);
    return removed;
  }

  async purgeTenant(tenantId: string) {
    const profiles = this.tenants.get(tenantId);
    this.tenants.delete(tenantId);
    return [...(profiles?.values() ?? [])].reduce((sum, versions) => sum + versions.length, 0);
  }
}
