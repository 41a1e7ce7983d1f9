/** Helpers that turn the shared resource and route definitions into construct ids and keyed records. */

/** `tenant-tiers`, `tenantTiers`, `GET /admin/{org_id}` → `TenantTiers`, `TenantTiers`, `GetAdminOrgId`. */
export function pascalCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1).toLowerCase())
    .join('');
}

/** Builds one value per definition, keeping the definition's keys (and their type). */
export function mapDefinitions<K extends string, D, R>(
  definitions: Record<K, D>,
  make: (key: K, definition: D) => R,
): Record<K, R> {
  const entries = Object.entries(definitions) as [K, D][];
  return Object.fromEntries(entries.map(([key, definition]) => [key, make(key, definition)])) as Record<K, R>;
}
