/** Wiki routes: save, search, topic get and delete, index, lint. */
import { Wiki } from '@tessera/api';
import { tracing } from '@tessera/config';
import { httpRoute } from '@tessera/http';
import { deletePage, getPage, lintWiki, saveSession, searchWiki, wiki, wikiIndex } from '@tessera/wiki';

const deps = wiki();
// Spans of this module follow tenants' telemetry records.
tracing();

export const save = httpRoute(Wiki.save, ({ body }) => saveSession(deps, body.tenant_id, body));

export const search = httpRoute(Wiki.search, ({ body }) =>
  searchWiki(deps, body.tenant_id, body.query, body.top_k),
);

export const getTopic = httpRoute(Wiki.getTopic, ({ path, query }) =>
  getPage(deps, query.tenant_id, path.slug),
);

export const deleteTopic = httpRoute(Wiki.deleteTopic, ({ path, query }) =>
  deletePage(deps, query.tenant_id, path.slug),
);

export const index = httpRoute(Wiki.index, ({ query }) => wikiIndex(deps, query.tenant_id));

export const lint = httpRoute(Wiki.lint, ({ query }) => lintWiki(deps, query.tenant_id));
