/**
 * One runtime with emulators per data directory: the emulators' stores cannot be opened twice. A second
 * runtime is told which one holds the directory and how to share it instead.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

interface Holder {
  pid: number;
  emulatorUrl?: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockDataDir(dataDir: string): { publish(emulatorUrl: string): void; release(): void } {
  const file = path.join(dataDir, 'runtime.lock');
  let holder: Holder | undefined;
  try {
    holder = JSON.parse(readFileSync(file, 'utf8')) as Holder;
  } catch {
    holder = undefined;
  }
  if (holder && holder.pid !== process.pid && alive(holder.pid)) {
    const share = holder.emulatorUrl
      ? ` To share its data, start with AWS_ENDPOINT_URL=${holder.emulatorUrl}.`
      : '';
    throw new Error(
      `The data directory ${dataDir} is in use by another Tessera runtime (pid ${holder.pid}).${share} ` +
        'Or give this one its own TESSERA_DATA_DIR.',
    );
  }
  writeFileSync(file, JSON.stringify({ pid: process.pid }));
  return {
    publish(emulatorUrl) {
      writeFileSync(file, JSON.stringify({ pid: process.pid, emulatorUrl }));
    },
    release() {
      rmSync(file, { force: true });
    },
  };
}
