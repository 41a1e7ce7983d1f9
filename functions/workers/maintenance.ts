/** Scheduled upkeep: roll back tenant creates whose process died. */
import { log } from '@tessera/core';
import { recoverInterruptedCreates, tenancy } from '@tessera/tenancy';

export const recoverTenants = async () => {
  const recovered = await recoverInterruptedCreates(tenancy());
  if (recovered.length > 0) log.info('rolled back interrupted tenant creates', { tenants: recovered });
  return { recovered };
};
