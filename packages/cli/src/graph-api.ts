/**
 * Shapes of the runtime's `GET /graph/*` answers, as far as the CLI reads them. Fields it does not print
 * are left out: `--json` prints the whole body as the runtime sent it.
 */
import { z } from 'zod';
import { CliError } from './errors';

export const graphStatsSchema = z.object({
  tenant_id: z.string(),
  node_count: z.number(),
  edge_count: z.number(),
  top_nodes: z.array(z.object({ node_id: z.string(), name: z.string(), degree: z.number() })),
});

export const graphSearchSchema = z.object({
  nodes: z.array(
    z.object({
      node_id: z.string(),
      name: z.string(),
      description: z.string().nullish(),
      kind: z.string().nullish(),
    }),
  ),
  count: z.number(),
});

const edgeSchema = z.object({
  source_node_id: z.string(),
  target_node_id: z.string(),
  relation: z.string(),
  provenance: z.string(),
  /** Present when the request asked for depth > 1. */
  hop: z.number().optional(),
});

export const graphNeighborsSchema = z.object({
  node_id: z.string(),
  name: z.string(),
  out_edges: z.array(edgeSchema),
  in_edges: z.array(edgeSchema),
});

export const graphPathSchema = z.object({
  source: z.string(),
  target: z.string(),
  path: z.array(z.string()).nullable(),
  length: z.number(),
});

export type GraphStats = z.infer<typeof graphStatsSchema>;
export type GraphSearch = z.infer<typeof graphSearchSchema>;
export type GraphEdge = z.infer<typeof edgeSchema>;
export type GraphNeighbors = z.infer<typeof graphNeighborsSchema>;
export type GraphPath = z.infer<typeof graphPathSchema>;

/** Reads an answer of `endpoint`; a body of another shape is reported, not printed half-way. */
export function readAnswer<T>(schema: z.ZodType<T>, body: unknown, endpoint: string): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new CliError(
    `Unexpected answer from ${endpoint}: ${issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body'}.`,
  );
}
