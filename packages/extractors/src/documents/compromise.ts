/**
 * The compromise NLP library (a lexicon and rule tagger that ships with its npm package: no download), run on
 * a pool of worker threads (one compromise each, loaded once) so that tagging a long document uses every core
 * and leaves the event loop free to answer requests and renew leases. Without threads (the setting is 0, or a
 * thread cannot start, as in a bundle that left the thread's module out) it tags in-thread, loaded on first use.
 */
import { setImmediate } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { log } from '@tessera/core';
import { extractorsEnv } from '../env';
import type { TaggedText, TagOptions } from './compromise-tagging.mjs';

export type { SelectionName, TaggedTerm, TaggedText, TagOptions } from './compromise-tagging.mjs';

const THREAD_MODULE = new URL('./compromise-worker.mjs', import.meta.url);

interface Task {
  text: string;
  options: TagOptions;
  resolve(tagged: TaggedText): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  task?: Task;
}

type Reply = { ready: true } | { tagged: TaggedText } | { error: string };

let inThread: Promise<(text: string, options: TagOptions) => TaggedText> | undefined;

/** Tags in this thread, giving the event loop a turn first (a chunk takes tens of milliseconds). */
async function tagInThread(text: string, options: TagOptions): Promise<TaggedText> {
  inThread ??= import('./compromise-tagging.mjs')
    .then((module) => module.tagText)
    .catch((error: unknown) => {
      inThread = undefined;
      throw error;
    });
  const tag = await inThread;
  await setImmediate();
  return tag(text, options);
}

/** Threads started on demand up to `size`; an idle thread does not keep the process alive. */
export class TaggingPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Task[] = [];
  /** Set when a thread could not start: tagging then stays in-thread. */
  private unavailable = false;

  /** `module` is the thread's entry point (another one only in tests). */
  constructor(
    private readonly size: number,
    private readonly module: URL = THREAD_MODULE,
  ) {}

  tag(text: string, options: TagOptions = {}): Promise<TaggedText> {
    if (this.size === 0 || this.unavailable) return tagInThread(text, options);
    return new Promise((resolve, reject) => {
      this.queue.push({ text, options, resolve, reject });
      this.dispatch();
    });
  }

  /** Starts every thread now (each loads the tagger), so the first document does not wait for them. */
  warm(): void {
    if (this.size === 0 || this.unavailable) return;
    while (this.threads.length < this.size) this.start().worker.unref();
  }

  /** Stops every thread; tasks still waiting fail. */
  async close(): Promise<void> {
    for (const task of this.queue.splice(0)) task.reject(new Error('the tagging pool was closed'));
    await Promise.all(this.threads.splice(0).map((thread) => thread.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let thread = this.threads.find((candidate) => candidate.task === undefined);
      if (!thread && this.threads.length < this.size) thread = this.start();
      if (!thread) return;
      const task = this.queue.shift()!;
      thread.task = task;
      thread.worker.ref();
      thread.worker.postMessage({ text: task.text, options: task.options });
    }
  }

  private start(): Thread {
    const thread: Thread = { worker: new Worker(this.module), ready: false };
    thread.worker.on('message', (reply: Reply) => {
      if ('ready' in reply) {
        thread.ready = true;
        return;
      }
      const task = thread.task;
      thread.task = undefined;
      thread.worker.unref();
      if ('error' in reply) task?.reject(new Error(reply.error));
      else task?.resolve(reply.tagged);
      this.dispatch();
    });
    const fail = (error: Error) => {
      const index = this.threads.indexOf(thread);
      if (index < 0) return;
      this.threads.splice(index, 1);
      const task = thread.task;
      thread.task = undefined;
      if (!thread.ready) {
        // The thread's module could not load: the same tagger in this thread does the work from now on.
        log.warn('entity tagging threads unavailable; tagging in the main thread', { error });
        this.unavailable = true;
        for (const waiting of [task, ...this.queue.splice(0)]) {
          if (waiting) tagInThread(waiting.text, waiting.options).then(waiting.resolve, waiting.reject);
        }
        return;
      }
      task?.reject(error);
      this.dispatch();
    };
    thread.worker.on('error', fail);
    thread.worker.on('exit', (code) => fail(new Error(`the tagging thread exited with code ${code}`)));
    this.threads.push(thread);
    return thread;
  }
}

const pool = new TaggingPool(extractorsEnv.entityThreads);

/** Loads the tagger on its threads ahead of the first document. */
export const warmTagging = () => pool.warm();

/** `text` tagged by compromise: the terms of each selection's matches, and every term (see `TagOptions`). */
export function tagText(text: string, options?: TagOptions): Promise<TaggedText> {
  return pool.tag(text, options);
}
