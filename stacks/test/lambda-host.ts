/**
 * Runs a built function bundle as Lambda's Node.js runtime does, for tests: a fresh Node process whose
 * working directory is a copy of the bundle outside the repository (no node_modules above it), LanceDB and
 * Arrow from the search layer on NODE_PATH, the `awslambda` global for response streaming, and the module
 * imported once, then invoked many times (a warm container).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

/** The host: reads `{id, name, event}` lines, answers `{id, result}` or `{id, error}` lines. */
const HOST = `
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
const STREAMING = Symbol.for('lambda-host.streaming');
globalThis.awslambda = {
  streamifyResponse(handler) { handler[STREAMING] = true; return handler; },
  HttpResponseStream: { from(stream, metadata) { stream.metadata = metadata; return stream; } },
};
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
const started = performance.now();
let handlers;
try {
  handlers = await import(process.argv[2]);
} catch (error) {
  send({ id: 'init', error: String(error?.stack ?? error) });
  process.exit(1);
}
send({ id: 'init', result: { importMs: performance.now() - started } });
const context = (name) => ({
  functionName: name,
  awsRequestId: String(Math.random()).slice(2),
  getRemainingTimeInMillis: () => 900000,
});
for await (const line of createInterface({ input: process.stdin })) {
  const { id, name, event } = JSON.parse(line);
  try {
    const handler = handlers[name];
    if (typeof handler !== 'function') throw new Error('no handler ' + name);
    if (handler[STREAMING]) {
      const chunks = [];
      const stream = new Writable({ write(chunk, _encoding, done) { chunks.push(Buffer.from(chunk)); done(); } });
      await handler(event, stream, context(name));
      send({ id, result: { metadata: stream.metadata, body: Buffer.concat(chunks).toString('utf8') } });
    } else {
      send({ id, result: (await handler(event, context(name))) ?? null });
    }
  } catch (error) {
    send({ id, error: String(error?.stack ?? error) });
  }
}
`;

export interface LambdaHost {
  /** Milliseconds the bundle took to import (its cold start, LanceDB included). */
  importMs: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are JSON a test asserts field by field
  invoke(name: string, event: unknown): Promise<any>;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  stop(): void;
}

/**
 * Copies `bundleDir` to `<dir>/<name>` and starts a host on it with exactly `env` (plus PATH): nothing of
 * this process's environment leaks into it.
 */
export async function startLambdaHost(options: {
  bundleDir: string;
  dir: string;
  name: string;
  env: Record<string, string>;
}): Promise<LambdaHost> {
  const root = path.join(options.dir, options.name);
  cpSync(options.bundleDir, root, { recursive: true });
  // One host file each: rewriting a shared one while another process starts from it would run it empty.
  const host = path.join(options.dir, `${options.name}.host.mjs`);
  writeFileSync(host, HOST);
  const child: ChildProcess = spawn(
    process.execPath,
    [host, pathToFileURL(path.join(root, 'index.mjs')).href],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  const output: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const pending = new Map<string, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let initialized: (value: { importMs: number }) => void;
  let failed: (error: Error) => void;
  const init = new Promise<{ importMs: number }>((resolve, reject) => {
    initialized = resolve;
    failed = reject;
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let message: { id: string; result?: unknown; error?: string };
    try {
      message = JSON.parse(line);
    } catch {
      message = { id: '' };
    }
    if (typeof message?.id !== 'string' || message.id === '') {
      output.push(line); // a log line of the function
      return;
    }
    if (message.id === 'init') {
      if (message.error) failed(new Error(`${options.name} failed to start: ${message.error}`));
      else initialized(message.result as { importMs: number });
      return;
    }
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(`${options.name}: ${message.error}`));
    else waiting.resolve(message.result);
  });
  child.on('exit', (code) => {
    const error = new Error(`${options.name} exited (${code}): ${stderr}\n${output.slice(-20).join('\n')}`);
    failed(error);
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  });
  const { importMs } = await init;
  let next = 0;
  return {
    importMs,
    invoke(name, event) {
      const id = String(next++);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.stdin!.write(`${JSON.stringify({ id, name, event })}\n`);
      });
    },
    stderr: () => stderr,
    stop: () => {
      child.kill();
    },
  };
}
