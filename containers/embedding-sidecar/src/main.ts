/** The embedding sidecar's entry: `node --import tsx containers/embedding-sidecar/src/main.ts`. */
import { parseSidecarEnv } from './env';
import { EmbeddingSidecarServer } from './server';

const env = parseSidecarEnv();
const sidecar = new EmbeddingSidecarServer({
  kind: env.embedKind,
  infinityUrl: env.infinityUrl,
  model: env.embedModel,
  modelRevision: env.embedModelRevision,
  videoFrames: env.embedVideoFrames,
  audioSeconds: env.embedAudioSeconds,
  maxBodyBytes: env.embedMaxBodyBytes,
});
const server = await sidecar.listen(env.port, env.host);
const address = server.address();
const port = typeof address === 'object' && address ? address.port : env.port;
process.stdout.write(
  `Tessera ${env.embedKind} embedding sidecar on http://${env.host}:${port} (model ${env.embedModel} at ${env.embedModelRevision}, Infinity at ${env.infinityUrl})\n`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
