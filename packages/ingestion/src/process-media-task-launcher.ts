/**
 * The local stand-in for the media worker's ECS task: its command started here as a process of its own,
 * detached, with the job's id as its argument, as ECS would run the container with the job in its environment.
 */
import { spawn } from 'node:child_process';
import { log } from '@tessera/core';
import type { MediaTaskLauncher } from './ports';

export class ProcessMediaTaskLauncher implements MediaTaskLauncher {
  readonly name: string;

  constructor(private readonly command: string[]) {
    this.name = `process:${command.join(' ')}`;
  }

  launch(jobId: string): Promise<string> {
    const [program, ...args] = this.command;
    return new Promise((resolve, reject) => {
      const child = spawn(program!, [...args, '--job', jobId], { stdio: ['ignore', 'inherit', 'inherit'] });
      child.once('error', (error) => reject(new Error(`the media worker could not start: ${error.message}`)));
      child.once('spawn', () => {
        child.once('exit', (code, signal) => {
          if (code !== 0) log.warn('media worker process ended badly', { job: jobId, code, signal });
        });
        resolve(`process:${child.pid}`);
      });
    });
  }
}
