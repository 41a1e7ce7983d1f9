/** The production wiring of ingestion. */
import { llmClient } from '@tessera/config/llm';
import { content } from '@tessera/content';
import { taskEvents } from '@tessera/events';
import {
  createEntityExtractor,
  extractorsEnv,
  OpenAIClaimExtractor,
  OpenAIEntityExtractor,
} from '@tessera/extractors';
import { graphDeps } from '@tessera/graph';
import { provisioningStore } from '@tessera/provisioning/quotas';
import type { IngestionDeps } from './deps';
import { DynamoJobRepository } from './dynamo-job-repository';
import { EcsMediaTaskLauncher } from './ecs-media-task-launcher';
import { ingestionEnv } from './env';
import { loadMediaTools } from './pipelines/media-tools';
import type { MediaTaskLauncher } from './ports';
import { ProcessMediaTaskLauncher } from './process-media-task-launcher';
import { S3BlobStore } from './s3-blob-store';
import { SqsJobQueue } from './sqs-job-queue';

let deps: IngestionDeps | undefined;

/** The media worker of the settings (TESSERA_MEDIA_TASKS), if any. */
export function mediaTaskLauncher(env = ingestionEnv): MediaTaskLauncher | undefined {
  if (env.mediaTasks === 'ecs') return new EcsMediaTaskLauncher(env.ecsTask);
  if (env.mediaTasks === 'process') return new ProcessMediaTaskLauncher(env.mediaTaskCommand!);
  return undefined;
}

export function ingestion(): IngestionDeps {
  if (deps) return deps;
  const entities = createEntityExtractor();
  const llm = llmClient();
  deps = {
    content: content(),
    graph: graphDeps(),
    events: taskEvents(),
    jobs: new DynamoJobRepository(),
    blobs: new S3BlobStore(),
    queue: new SqsJobQueue(),
    quotas: provisioningStore(),
    entities,
    // A job's LLM calls go to its tenant's endpoint (its `llm` record, else the system's, else TESSERA_LLM_*),
    // resolved by the one LLM client on every call, so a changed record holds from the next call on.
    extractorsFor: async (tenantFullId) => {
      const tenantLlm = llm.forTenant(tenantFullId);
      const configured = await tenantLlm.settings();
      return {
        entities: extractorsEnv.entityExtractor === 'llm' ? new OpenAIEntityExtractor(tenantLlm) : entities,
        claims: configured ? new OpenAIClaimExtractor(tenantLlm) : undefined,
      };
    },
    ...(ingestionEnv.mediaTools && { media: loadMediaTools }),
    mediaTasks: mediaTaskLauncher(),
  };
  return deps;
}
