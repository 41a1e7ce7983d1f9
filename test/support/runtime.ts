/** Starts `npm start`'s entry point as a child process on free ports, as a user would run it. */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkAnswer } from './contract';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Another AWS emulator the tests run against (moto, started by vitest.moto.config.ts), instead of each
 * runtime's own emulators. The runtimes of a test file then share one stage of their own, so files running
 * at the same time never share a table, queue or bucket, and this process's own library code (set to the
 * same endpoint by the tests) finds the same resources.
 */
const awsEndpoint = process.env.TESSERA_TEST_AWS_ENDPOINT_URL || undefined;
/** The stage (resource-name prefix) of this file's runtimes. */
export const stage = awsEndpoint ? `t${randomBytes(5).toString('hex')}` : 'local';
if (awsEndpoint) process.env.TESSERA_STAGE = stage;

export interface RuntimeProcess {
  url: string;
  /** Where the runtime's AWS services answer: its own emulators' endpoint, or the one the tests run against. */
  emulatorUrl?: string;
  /** The stage its resources are named by: `tessera-<stage>-uploads`. */
  stage: string;
  dataDir: string;
  child: ChildProcess;
  output: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export const tempDataDir = () => mkdtempSync(path.join(tmpdir(), 'tessera-'));

export function spawnRuntime(
  options: { dataDir?: string; env?: Record<string, string>; args?: string[] } = {},
): Promise<RuntimeProcess> {
  const dataDir = options.dataDir ?? tempDataDir();
  const child = spawn(
    process.execPath,
    [...(options.args ?? []), '--import', 'tsx', 'packages/runtime/src/main.ts'],
    {
      cwd: root,
      env: {
        ...process.env,
        TESSERA_DATA_DIR: dataDir,
        TESSERA_PORT: '0',
        TESSERA_EMULATOR_PORT: '0',
        TESSERA_LOG_LEVEL: 'warn',
        // The web client has its own tests; these runtimes would all want port 4000.
        TESSERA_WEB: 'off',
        ...(awsEndpoint ? { AWS_ENDPOINT_URL: awsEndpoint } : {}),
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let ready = false;
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      const match =
        /listening on (http:\/\/\S+) \(data in [^;]*(?:; AWS emulators at (http:\/\/[^\s;]+))?;/.exec(output);
      if (ready || !match) return;
      ready = true;
      resolve({
        url: match[1]!,
        emulatorUrl: match[2] ?? awsEndpoint,
        stage,
        dataDir,
        child,
        output: () => output,
        async stop(signal = 'SIGINT') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    exited.then((code) => {
      if (!ready) reject(new Error(`runtime exited with ${code} before it was ready:\n${output}`));
    });
  });
}

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are JSON whose fields tests assert one by one
  body: any;
  headers: Headers;
}

/** A JSON request against the runtime. */
export async function call(
  base: string,
  method: string,
  pathAndQuery: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${base}${pathAndQuery}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  checkAnswer(method, pathAndQuery, response.status, parsed);
  return { status: response.status, body: parsed, headers: response.headers };
}
