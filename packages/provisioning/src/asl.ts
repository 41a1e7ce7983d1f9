/**
 * Runs an Amazon States Language definition in process, as Step Functions would, for the parts the
 * provisioning definition uses: Task (Parameters with `.$` paths, ResultPath, Retry, Catch), Pass, Fail and
 * Succeed. A Task's resource is called through `invoke`; its errors are matched by their `name`.
 */
import type { AslDefinition, AslState } from './definition';

export class StatesError extends Error {
  constructor(
    readonly error: string,
    override readonly cause: string,
  ) {
    super(`${error}: ${cause}`);
    this.name = 'StatesError';
  }
}

type Json = Record<string, unknown>;

function read(document: unknown, path: string): unknown {
  if (path === '$') return document;
  if (!path.startsWith('$.')) throw new StatesError('States.Runtime', `unsupported path ${path}`);
  let value: unknown = document;
  for (const part of path.slice(2).split('.')) {
    value = typeof value === 'object' && value !== null ? (value as Json)[part] : undefined;
  }
  return value;
}

function parameters(template: Json, input: unknown): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(template)) {
    if (key.endsWith('.$')) out[key.slice(0, -2)] = read(input, value as string);
    else if (typeof value === 'object' && value !== null && !Array.isArray(value))
      out[key] = parameters(value as Json, input);
    else out[key] = value;
  }
  return out;
}

function place(input: unknown, path: string | undefined, result: unknown): unknown {
  if (path === undefined || path === '$') return result;
  const copy = structuredClone((input ?? {}) as Json);
  const parts = path.slice(2).split('.');
  let target = copy;
  for (const part of parts.slice(0, -1)) {
    target[part] = typeof target[part] === 'object' && target[part] !== null ? target[part] : {};
    target = target[part] as Json;
  }
  target[parts.at(-1)!] = result;
  return copy;
}

const matches = (equals: string[], name: string) =>
  equals.includes('States.ALL') ||
  equals.includes(name) ||
  (equals.includes('States.TaskFailed') && name !== 'States.Timeout');

interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  MaxAttempts?: number;
  BackoffRate?: number;
}
interface Catcher {
  ErrorEquals: string[];
  ResultPath?: string;
  Next: string;
}

export interface RunOutcome {
  status: 'succeeded' | 'failed';
  output?: unknown;
  error?: string;
  cause?: string;
}

/** Runs `definition` on `input`; `invoke` plays each Task's resource. */
export async function runDefinition(
  definition: AslDefinition,
  input: unknown,
  invoke: (resource: string, payload: Json) => Promise<unknown>,
  options: { sleep?: (ms: number) => Promise<void> } = {},
): Promise<RunOutcome> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let name = definition.StartAt;
  let document = input;
  for (;;) {
    const state = definition.States[name] as AslState | undefined;
    if (!state) return { status: 'failed', error: 'States.Runtime', cause: `no state named ${name}` };
    if (state.Type === 'Succeed') return { status: 'succeeded', output: document };
    if (state.Type === 'Fail') {
      return { status: 'failed', error: String(state.Error ?? ''), cause: String(state.Cause ?? '') };
    }
    let next: string | undefined;
    if (state.Type === 'Pass') {
      document = place(document, state.ResultPath as string | undefined, state.Result ?? document);
    } else if (state.Type === 'Task') {
      const payload = parameters((state.Parameters ?? {}) as Json, document);
      const retriers = (state.Retry ?? []) as Retrier[];
      const tries = new Map<Retrier, number>();
      for (;;) {
        try {
          const result = await invoke(String(state.Resource), payload);
          document = place(document, state.ResultPath as string | undefined, result);
          break;
        } catch (thrown) {
          const error = thrown as Error;
          const errorName = error.name || 'Error';
          const retrier = retriers.find((candidate) => matches(candidate.ErrorEquals, errorName));
          const done = retrier ? (tries.get(retrier) ?? 0) : 0;
          if (retrier && done < (retrier.MaxAttempts ?? 3)) {
            tries.set(retrier, done + 1);
            const interval = (retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** done;
            await sleep(interval * 1000);
            continue;
          }
          const catcher = ((state.Catch ?? []) as Catcher[]).find((candidate) =>
            matches(candidate.ErrorEquals, errorName),
          );
          if (!catcher) return { status: 'failed', error: errorName, cause: error.message };
          document = place(document, catcher.ResultPath, { Error: errorName, Cause: error.message });
          next = catcher.Next;
          break;
        }
      }
    } else {
      return { status: 'failed', error: 'States.Runtime', cause: `unsupported state type ${state.Type}` };
    }
    if (next) {
      name = next;
      continue;
    }
    if (state.End === true) return { status: 'succeeded', output: document };
    name = String(state.Next);
  }
}
