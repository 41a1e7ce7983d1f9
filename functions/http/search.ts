/** Content search routes. */
import { content, listProfiles, searchContent } from '@tessera/content';
import { httpRoute } from '@tessera/http';
import { RankingStrategy } from '@tessera/search';
import { z } from 'zod';

const deps = content();

export const search = httpRoute(
  {
    body: z.object({
      query: z.string().min(1).max(10_000),
      tenant_id: z.string(),
      profile: z.string().min(1).optional(),
      profiles: z.array(z.string().min(1)).min(1).max(10).optional(),
      strategy: RankingStrategy.optional(),
      top_k: z.number().int().min(1).max(1000).default(10),
    }),
  },
  ({ body }) => searchContent(deps, body),
);

export const profiles = httpRoute({ query: z.object({ tenant_id: z.string() }) }, ({ query }) =>
  listProfiles(deps, query.tenant_id),
);
