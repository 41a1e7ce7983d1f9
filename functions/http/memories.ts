/** Admin routes of a tenant's agent memories and instructions. */
import { Memories } from '@tessera/api';
import { tracing } from '@tessera/config';
import { httpRoute } from '@tessera/http';
import {
  deleteMemories as deleteAll,
  getInstructions as getText,
  listMemories as list,
  memories,
  putInstructions as putText,
} from '@tessera/memories';

tracing();
const deps = memories();

export const listMemories = httpRoute(Memories.listMemories, ({ path, query }) =>
  list(deps, path.tenant, { agentName: query.agent_name, limit: query.limit }),
);

export const deleteMemories = httpRoute(Memories.deleteMemories, ({ path, query }) =>
  deleteAll(deps, path.tenant, query.agent_name),
);

export const putInstructions = httpRoute(Memories.putInstructions, ({ path, body }) =>
  putText(deps, path.tenant, body.text),
);

export const getInstructions = httpRoute(Memories.getInstructions, ({ path }) => getText(deps, path.tenant));
