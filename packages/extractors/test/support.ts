/** Compact views of an extraction for exact assertions. */
import type { CodeExtraction } from '@tessera/extractors';

/** `name → description` of every node. */
export function descriptions(result: CodeExtraction): Record<string, string> {
  return Object.fromEntries(result.nodes.map((node) => [node.name, node.description]));
}

/** Every edge as `source relation target`, sorted. */
export function edgeList(result: CodeExtraction, relation?: string): string[] {
  return result.edges
    .filter((edge) => relation === undefined || edge.relation === relation)
    .map((edge) => `${edge.source} ${edge.relation} ${edge.target}`)
    .sort();
}

export function edge(result: CodeExtraction, source: string, relation: string, target: string) {
  return result.edges.find((e) => e.source === source && e.relation === relation && e.target === target);
}

export function node(result: CodeExtraction, name: string) {
  return result.nodes.find((n) => n.name === name);
}
