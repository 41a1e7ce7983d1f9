/** Scheduled upkeep: roll back tenant creates whose process died; migrate drifted tenant schemas; drop expired task events. */
import { log } from '@tessera/core';
import { taskEvents } from '@tessera/events';
import { tenantAdmin } from '@tessera/functions/tenant-data';
import { migrateDriftedSchemas, recoverInterruptedCreates, tenancy } from '@tessera/tenancy';

export const recoverTenants = async () => {
  const recovered = await recoverInterruptedCreates(tenantAdmin());
  if (recovered.length > 0) log.info('rolled back interrupted tenant creates', { tenants: recovered });
  return { recovered };
};

export const migrateSchemas = async () => {
  const summary = await migrateDriftedSchemas(tenancy());
  if (summary.migrated.length > 0 || summary.refused.length > 0)
    log.info('tenant schema migration', { ...summary });
  return summary;
};

const events = taskEvents();

export const sweepTaskEvents = async () => {
  const swept = await events.sweepExpired();
  if (swept.length > 0) log.info('removed expired task events', { tasks: swept.length });
  return { swept: swept.length };
};
