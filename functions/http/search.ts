/** Content search routes. */
import { Search } from '@tessera/api';
import { content, listProfiles, searchContent } from '@tessera/content';
import { httpRoute } from '@tessera/http';

const deps = content();

export const search = httpRoute(Search.search, ({ body }) => searchContent(deps, body));

export const profiles = httpRoute(Search.profiles, ({ query }) => listProfiles(deps, query.tenant_id));
