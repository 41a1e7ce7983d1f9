/**
 * Crash points for recovery tests: `TESSERA_FAILPOINTS=tenant.create.after_deploy` kills the process
 * with SIGKILL when execution reaches that point, as a power cut would. Unset, a failpoint costs one lookup.
 */
import { coreEnv } from './env';

const armed = new Set(
  coreEnv.failpoints
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean),
);

export function failpoint(name: string): void {
  if (armed.size > 0 && armed.has(name)) process.kill(process.pid, 'SIGKILL');
}

/**
 * A fault instead of a crash: `TESSERA_FAILPOINTS=ingestion.file:poison.md` makes the point of that name
 * throw, as a bug that fails on one input would, so retry and dead-letter paths can be exercised.
 */
export function faultpoint(name: string): void {
  if (armed.size > 0 && armed.has(name)) throw new Error(`Fault injected at ${name}`);
}

/**
 * A stall: `TESSERA_FAILPOINTS=stall:ingestion.file:stuck.md` makes the point of that name wait forever, as a
 * call that never answers would, so deadlines can be exercised. Unarmed, it answers at once.
 */
export function stallpoint(name: string): Promise<void> {
  if (armed.size > 0 && armed.has(`stall:${name}`)) return new Promise(() => undefined);
  return Promise.resolve();
}
