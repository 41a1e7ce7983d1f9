/** The ECS adapter of the media task launcher: the media worker's task definition run on Fargate. */
import { ECSClient, RunTaskCommand } from '@aws-sdk/client-ecs';
import { platformEnv } from '@tessera/platform';
import type { MediaTaskLauncher } from './ports';

export interface EcsTaskSettings {
  cluster: string;
  taskDefinition: string;
  /** The media worker's container in the task definition (its environment gets the job's id). */
  container: string;
  subnets: string[];
  securityGroups: string[];
  assignPublicIp: boolean;
}

/** The variable the media worker reads the job it runs from (see containers/media-worker). */
export const MEDIA_JOB_VARIABLE = 'TESSERA_MEDIA_JOB_ID';

export class EcsMediaTaskLauncher implements MediaTaskLauncher {
  readonly name: string;

  constructor(
    private readonly settings: EcsTaskSettings,
    private readonly client: ECSClient = new ECSClient({ region: platformEnv.awsRegion, maxAttempts: 3 }),
  ) {
    this.name = `ecs:${settings.cluster}/${settings.taskDefinition}`;
  }

  async launch(jobId: string): Promise<string> {
    const answer = await this.client.send(
      new RunTaskCommand({
        cluster: this.settings.cluster,
        taskDefinition: this.settings.taskDefinition,
        launchType: 'FARGATE',
        count: 1,
        // The same job launched twice (a redelivered hand-off) starts one task: ECS keeps the token 1 h.
        clientToken: jobId.slice(0, 64),
        startedBy: jobId.slice(0, 36),
        networkConfiguration: {
          awsvpcConfiguration: {
            subnets: this.settings.subnets,
            securityGroups:
              this.settings.securityGroups.length > 0 ? this.settings.securityGroups : undefined,
            assignPublicIp: this.settings.assignPublicIp ? 'ENABLED' : 'DISABLED',
          },
        },
        overrides: {
          containerOverrides: [
            { name: this.settings.container, environment: [{ name: MEDIA_JOB_VARIABLE, value: jobId }] },
          ],
        },
      }),
    );
    const task = answer.tasks?.[0]?.taskArn;
    if (!task) {
      const failure = answer.failures?.[0];
      throw new Error(
        `ECS did not start the media worker for ${jobId}: ${failure ? `${failure.reason ?? 'failed'}${failure.detail ? ` (${failure.detail})` : ''}` : 'no task in its answer'}`,
      );
    }
    return task;
  }
}
