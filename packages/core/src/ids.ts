/** Organization and tenant identifiers: validation, canonical `org:tenant` form and schema naming. */
import { BadRequestError } from './errors';

const NAME_PATTERN = /^[a-zA-Z0-9_]+$/;
/** Keeps every tenant schema name (`<base>_<org>_<tenant>`) a valid table and file name. */
export const MAX_NAME_LENGTH = 64;
export const SYSTEM_TENANT = '__system__';

export interface TenantId {
  orgId: string;
  tenantName: string;
  /** Canonical `org:tenant`. */
  full: string;
}

function shorten(value: string): string {
  return value.length > 80 ? `${value.slice(0, 77)}...` : value;
}

function validateName(field: 'org_id' | 'tenant_name', value: string): void {
  if (value.length === 0) throw new BadRequestError(`${field} cannot be empty`);
  if (!NAME_PATTERN.test(value)) {
    throw new BadRequestError(
      `Invalid ${field} '${shorten(value)}': only alphanumeric and underscore allowed`,
    );
  }
  if (value.length > MAX_NAME_LENGTH) {
    throw new BadRequestError(
      `Invalid ${field} '${shorten(value)}': at most ${MAX_NAME_LENGTH} characters allowed (got ${value.length})`,
    );
  }
}

export function validateOrgId(orgId: string): string {
  validateName('org_id', orgId);
  return orgId;
}

/** Parses a bare (`acme` → `acme:acme`) or full (`acme:prod`) tenant id; throws 400 with the spec's messages. */
export function parseTenantId(raw: string): TenantId {
  const parts = raw.split(':');
  if (parts.length > 2) {
    throw new BadRequestError(
      `Invalid tenant_id format: ${shorten(raw)}. Expected 'org:tenant' with single colon`,
    );
  }
  if (parts.length === 2) {
    const [orgId = '', tenantName = ''] = parts;
    if (orgId === '' || tenantName === '') {
      throw new BadRequestError(
        `Invalid tenant_id format: ${shorten(raw)}. Both org and tenant parts must be non-empty`,
      );
    }
    validateName('org_id', orgId);
    validateName('tenant_name', tenantName);
    return { orgId, tenantName, full: `${orgId}:${tenantName}` };
  }
  validateName('org_id', raw);
  return { orgId: raw, tenantName: raw, full: `${raw}:${raw}` };
}

/** `acme` and `acme:acme` give the same canonical id. */
export function canonicalTenantId(raw: string): string {
  return parseTenantId(raw).full;
}

/** Suffix shared by every schema of a tenant: `_<org>_<tenant>`. */
export function tenantSchemaSuffix(tenant: TenantId): string {
  return `_${tenant.orgId}_${tenant.tenantName}`;
}

/** `<base>_<org>_<tenant>`. */
export function tenantSchemaName(baseSchema: string, tenant: TenantId): string {
  return `${baseSchema}${tenantSchemaSuffix(tenant)}`;
}
