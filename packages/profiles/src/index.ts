/**
 * Backend profiles of tenants (document 2): the profile routes' domain, the profile store port and its
 * DynamoDB adapter, and each tenant's view of the profiles it can use (`tenantProfiles`) for search and
 * ingestion.
 */
export type { ProfilesDeps } from './deps';
export { DynamoProfileStore } from './dynamo-store';
export { effectiveProfile, type ProfileFields, READ_EXTRA_KEYS } from './effective';
export {
  createProfile,
  deleteProfile,
  deployProfile,
  getProfile,
  listProfiles,
  profileTemplates,
  profileVersions,
  purgeTenantProfiles,
  updateProfile,
} from './profiles';
export { type ProfileStore, StoredProfile } from './store';
export { createErrors, profileNameError, strategyErrors } from './validation';
export { ProfileViews, tenantProfiles } from './views';
export { profiles, profilesData } from './wiring';
