/** The late-interaction vectors of nodes whose text changed: the codes search scans, the floats stored. */
import type { MultiVectorEncoder } from '@tessera/encoders';
import { codeWords } from '@tessera/search';
import type { NodeState } from './tenant-graph';

const BATCH = 512;

/** Sets each node's codes and token count; answers its float vectors by node id, for storing. */
export async function embedNodes(
  encoder: MultiVectorEncoder,
  nodes: NodeState[],
): Promise<Map<string, Float32Array>> {
  const floats = new Map<string, Float32Array>();
  for (let start = 0; start < nodes.length; start += BATCH) {
    const batch = nodes.slice(start, start + BATCH);
    const vectors = await encoder.encode(
      batch.map((node) => `${node.name} ${node.description}`.trim()),
      'document',
    );
    batch.forEach((node, i) => {
      node.tokens = vectors[i]!.tokens;
      node.codes = codeWords(vectors[i]!.binary).slice();
      floats.set(node.node_id, vectors[i]!.vectors);
    });
  }
  return floats;
}
