/** `npm run bench [name...]`: runs the benchmarks and prints their figures. */
import { adminBench } from './admin.bench';
import { agentsBench } from './agents.bench';
import { bundlesBench } from './bundles.bench';
import { chatBench } from './chat.bench';
import { encodersBench } from './encoders.bench';
import { eventsBench } from './events.bench';
import { extractBench } from './extract.bench';
import { graphBench } from './graph.bench';
import { ingestBench } from './ingest.bench';
import { knowledgeBench } from './knowledge.bench';
import { mediaBench } from './media.bench';
import { memoriesBench } from './memories.bench';
import { runtimeBench } from './runtime.bench';
import { searchBench } from './search.bench';
import { uploadsBench } from './uploads.bench';
import { webBench } from './web.bench';
import { wikiBench } from './wiki.bench';

const benches: Record<string, () => Promise<void>> = {
  runtime: runtimeBench,
  search: searchBench,
  graph: graphBench,
  knowledge: knowledgeBench,
  extract: extractBench,
  events: eventsBench,
  ingest: ingestBench,
  media: mediaBench,
  encoders: encodersBench,
  web: webBench,
  bundles: bundlesBench,
  uploads: uploadsBench,
  admin: adminBench,
  agents: agentsBench,
  memories: memoriesBench,
  wiki: wikiBench,
  chat: chatBench,
};

const wanted = process.argv.slice(2);
for (const name of wanted.length > 0 ? wanted : Object.keys(benches)) {
  const bench = benches[name];
  if (!bench) {
    console.error(`Unknown benchmark '${name}'. Available: ${Object.keys(benches).join(', ')}`);
    process.exit(1);
  }
  await bench();
}
