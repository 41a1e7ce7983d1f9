/** The lines the graph commands print, as pure functions of the runtime's answers. */
import type { GraphEdge, GraphNeighbors, GraphPath, GraphSearch, GraphStats } from './graph-api';

export function statsLines(stats: GraphStats): string[] {
  const lines = [
    `Knowledge Graph (tenant: ${stats.tenant_id})`,
    `  Nodes: ${stats.node_count}`,
    `  Edges: ${stats.edge_count}`,
    '',
    'Top nodes (by degree):',
  ];
  if (stats.top_nodes.length === 0) return [...lines, '  none'];
  const names = stats.top_nodes.map((node) => node.name || node.node_id);
  const width = Math.max('Node'.length, ...names.map((name) => name.length));
  lines.push(`  ${'Node'.padEnd(width)}  Degree`);
  stats.top_nodes.forEach((node, index) => {
    lines.push(`  ${names[index]!.padEnd(width)}  ${node.degree}`);
  });
  return lines;
}

export function searchLines(query: string, result: GraphSearch): string[] {
  if (result.nodes.length === 0) return [`No nodes found for '${query}'`];
  const lines = [`Found ${result.count} nodes for '${query}':`];
  for (const node of result.nodes) {
    lines.push(`  ${node.name} (${node.kind ?? 'unknown kind'})`);
    // An empty description would only print an indented blank line.
    if (node.description) lines.push(`    ${oneLine(node.description)}`);
  }
  return lines;
}

export function neighborsLines(result: GraphNeighbors): string[] {
  return [
    `Neighbors of ${result.name}`,
    '  Outgoing:',
    ...edgeLines(
      result.out_edges,
      (edge) => `→ ${edge.target_node_id}`,
      (edge) => `from ${edge.source_node_id}`,
    ),
    '  Incoming:',
    ...edgeLines(
      result.in_edges,
      (edge) => `← ${edge.source_node_id}`,
      (edge) => `to ${edge.target_node_id}`,
    ),
  ];
}

/** Edges reached beyond the first hop (depth > 1) name their far end, which is not the asked node. */
function edgeLines(
  edges: GraphEdge[],
  head: (edge: GraphEdge) => string,
  via: (edge: GraphEdge) => string,
): string[] {
  if (edges.length === 0) return ['    none'];
  return edges.map((edge) => {
    const hop = edge.hop !== undefined && edge.hop > 1 ? ` [hop ${edge.hop}, ${via(edge)}]` : '';
    return `    ${head(edge)} (${edge.relation}, ${edge.provenance})${hop}`;
  });
}

export function pathLines(result: GraphPath, maxDepth: number): string[] {
  if (result.path === null || result.path.length === 0) {
    return [`No path found between '${result.source}' and '${result.target}' within depth ${maxDepth}`];
  }
  return [
    `Path: ${result.source} → ${result.target} (length ${result.length})`,
    `  ${result.path.join(' → ')}`,
  ];
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
