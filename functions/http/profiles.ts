/** Admin routes of backend profiles. */
import { Profiles } from '@tessera/api';
import { httpRoute, reply } from '@tessera/http';
import {
  createProfile as create,
  deployProfile as deploy,
  getProfile as get,
  listProfiles as list,
  profiles,
  deleteProfile as remove,
  profileTemplates as templates,
  updateProfile as update,
} from '@tessera/profiles';

const deps = profiles();

export const createProfile = httpRoute(Profiles.createProfile, async ({ body }) =>
  reply(201, await create(deps, body)),
);

export const profileTemplates = httpRoute(Profiles.profileTemplates, ({ query }) =>
  templates(deps, query.tenant_id),
);

export const listProfiles = httpRoute(Profiles.listProfiles, ({ query }) => list(deps, query.tenant_id));

export const getProfile = httpRoute(Profiles.getProfile, ({ path, query }) =>
  get(deps, path.profile_name, query.tenant_id),
);

export const updateProfile = httpRoute(Profiles.updateProfile, ({ path, body }) =>
  update(deps, path.profile_name, body),
);

export const deleteProfile = httpRoute(Profiles.deleteProfile, ({ path, query }) =>
  remove(deps, path.profile_name, query.tenant_id, query.delete_schema),
);

export const deployProfile = httpRoute(Profiles.deployProfile, ({ path, body }) =>
  deploy(deps, path.profile_name, body),
);
