/** Content search routes. */
import { Search } from '@tessera/api';
import { tracing } from '@tessera/config';
import { content, listProfiles, searchContent } from '@tessera/content';
import { httpRoute } from '@tessera/http';

const deps = content();
// Spans of this module follow tenants' telemetry records.
tracing();

export const search = httpRoute(Search.search, ({ body }) => searchContent(deps, body));

export const profiles = httpRoute(Search.profiles, ({ query }) => listProfiles(deps, query.tenant_id));
