/**
 * The runtime's `GET /graph/*` answers, read with @tessera/api's schemas: a body of another shape is
 * reported, never printed half-way. `--json` prints the whole body as the runtime sent it.
 */
import { Graph } from '@tessera/api';
import type { z } from 'zod';
import { CliError } from './errors';

export const graphStatsSchema = Graph.GraphStats;
export const graphSearchSchema = Graph.NodeSearch;
export const graphNeighborsSchema = Graph.Neighbors;
export const graphPathSchema = Graph.GraphPath;

export type GraphStats = Graph.GraphStats;
export type GraphSearch = Graph.NodeSearch;
export type GraphNeighbors = Graph.Neighbors;
export type GraphEdge = Graph.Neighbors['out_edges'][number];
export type GraphPath = Graph.GraphPath;

/** Reads an answer of `endpoint`; a body of another shape is reported, not printed half-way. */
export function readAnswer<T>(schema: z.ZodType<T>, body: unknown, endpoint: string): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new CliError(
    `Unexpected answer from ${endpoint}: ${issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body'}.`,
  );
}
