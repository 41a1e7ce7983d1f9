/**
 * The organization and tenant the client works in. The tenant is in the URL (`?tenant=org:tenant`, so a link
 * names it) and remembered in local storage for the next visit.
 */
import type { Organizations } from '@tessera/api';
import { useEffect, useId, useState } from 'react';
import { api } from './api';
import { setParams, useLocation } from './router';
import { useRecoveries } from './runtime-status';

const STORAGE_KEY = 'tessera.tenant';

function remembered(): string | undefined {
  try {
    return localStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The chosen tenant's canonical id, from the URL or the last visit. */
export function useTenantId(): string | undefined {
  const location = useLocation();
  const fromUrl = location.searchParams.get('tenant') ?? undefined;
  const stored = remembered();
  useEffect(() => {
    // A remembered tenant is put in the URL, so links and reloads carry it.
    if (!fromUrl && stored) setParams({ tenant: stored }, { replace: true });
  }, [fromUrl, stored]);
  return fromUrl ?? stored;
}

export function chooseTenant(tenantId: string | undefined): void {
  try {
    if (tenantId) localStorage.setItem(STORAGE_KEY, tenantId);
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage refused (private mode): the URL still carries the tenant
  }
  setParams({ tenant: tenantId });
}

type Load<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; value: T };

export function TenantPicker({ tenantId }: { tenantId: string | undefined }) {
  const id = useId();
  const recoveries = useRecoveries();
  const [orgs, setOrgs] = useState<Load<Organizations.Organization[]>>({ state: 'loading' });
  const [orgId, setOrgId] = useState<string | undefined>(tenantId?.split(':')[0]);
  const [tenants, setTenants] = useState<Load<Organizations.OrganizationTenants['tenants']>>({
    state: 'loading',
  });

  useEffect(() => {
    if (tenantId) setOrgId(tenantId.split(':')[0]);
  }, [tenantId]);

  useEffect(() => {
    let live = true;
    void recoveries;
    api.organizations().then(
      (answer) => live && setOrgs({ state: 'ready', value: answer.organizations }),
      (error: Error) => live && setOrgs({ state: 'error', message: error.message }),
    );
    return () => {
      live = false;
    };
  }, [recoveries]);

  // With one organization, it is the choice.
  useEffect(() => {
    if (!orgId && orgs.state === 'ready' && orgs.value.length === 1) setOrgId(orgs.value[0]!.org_id);
  }, [orgId, orgs]);

  useEffect(() => {
    if (!orgId) return;
    let live = true;
    void recoveries;
    setTenants({ state: 'loading' });
    api.tenants(orgId).then(
      (answer) => {
        if (!live) return;
        const active = answer.tenants.filter((tenant) => tenant.status === 'active');
        setTenants({ state: 'ready', value: active });
        // With one tenant and none chosen, it is the choice.
        if (!tenantId && active.length === 1) chooseTenant(active[0]!.tenant_full_id);
      },
      (error: Error) => live && setTenants({ state: 'error', message: error.message }),
    );
    return () => {
      live = false;
    };
  }, [orgId, recoveries, tenantId]);

  const orgOptions = orgs.state === 'ready' ? orgs.value : [];
  const tenantOptions = tenants.state === 'ready' ? tenants.value : [];
  const knownTenant = tenantOptions.some((tenant) => tenant.tenant_full_id === tenantId);

  return (
    <fieldset className="tenant-picker">
      <legend className="visually-hidden">Organization and tenant</legend>
      <label htmlFor={`${id}-org`}>Organization</label>
      <select
        id={`${id}-org`}
        value={orgId ?? ''}
        disabled={orgs.state !== 'ready'}
        aria-describedby={orgs.state === 'error' ? `${id}-org-error` : undefined}
        onChange={(event) => {
          setOrgId(event.target.value || undefined);
          chooseTenant(undefined);
        }}
      >
        <option value="">{orgs.state === 'loading' ? 'Loading…' : 'Choose…'}</option>
        {orgOptions.map((org) => (
          <option key={org.org_id} value={org.org_id}>
            {org.org_name.toLowerCase() === org.org_id.toLowerCase()
              ? org.org_name
              : `${org.org_name} (${org.org_id})`}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-tenant`}>Tenant</label>
      <select
        id={`${id}-tenant`}
        value={tenantId ?? ''}
        disabled={!orgId || tenants.state !== 'ready'}
        onChange={(event) => chooseTenant(event.target.value || undefined)}
      >
        <option value="">{orgId && tenants.state === 'loading' ? 'Loading…' : 'Choose…'}</option>
        {tenantId && !knownTenant && tenants.state !== 'ready' ? (
          <option value={tenantId}>{tenantId.split(':')[1] ?? tenantId}</option>
        ) : null}
        {tenantOptions.map((tenant) => (
          <option key={tenant.tenant_full_id} value={tenant.tenant_full_id}>
            {tenant.tenant_name}
          </option>
        ))}
      </select>
      {orgs.state === 'error' ? (
        <span id={`${id}-org-error`} className="picker-error" role="status">
          {orgs.message}
        </span>
      ) : null}
    </fieldset>
  );
}

/** What the client shows until a tenant is chosen, with how to make one when there is none. */
export function ChooseTenant() {
  const recoveries = useRecoveries();
  const [count, setCount] = useState<number | undefined>();
  useEffect(() => {
    void recoveries;
    api.organizations().then(
      (answer) => setCount(answer.organizations.reduce((sum, org) => sum + org.tenant_count, 0)),
      () => setCount(undefined),
    );
  }, [recoveries]);
  return (
    <section className="empty-state" aria-labelledby="choose-tenant">
      <h1 id="choose-tenant" tabIndex={-1}>
        Choose a tenant
      </h1>
      {count === 0 ? (
        <>
          <p>There is no tenant yet. Tenants are created through the runtime's admin API, for example:</p>
          <pre>
            <code>
              {`curl -s -X POST http://localhost:28000/admin/tenants \\
  -H 'content-type: application/json' \\
  -d '{"tenant_id": "acme:prod", "base_schemas": ["document_text", "code"]}'`}
            </code>
          </pre>
          <p>Then pick its organization and the tenant above.</p>
        </>
      ) : (
        <p>
          Pick an organization and one of its tenants above. Search, uploads and the knowledge graph all work
          within that tenant.
        </p>
      )}
    </section>
  );
}
