/**
 * Where the in-process commands reach AWS: `AWS_ENDPOINT_URL` when set, else the emulators of the local
 * runtime that holds the data directory (its lock file names them), else AWS itself.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { awsEnv, setAwsVariables } from './env';

export interface AwsTarget {
  endpoint?: string;
  /** The emulators accept only their own key pair. */
  emulators: boolean;
}

export function awsTarget(): AwsTarget {
  if (awsEnv.awsEndpointUrl) return { endpoint: awsEnv.awsEndpointUrl, emulators: false };
  try {
    const lock = JSON.parse(readFileSync(path.join(awsEnv.dataDir, 'runtime.lock'), 'utf8')) as {
      emulatorUrl?: string;
    };
    if (lock.emulatorUrl) return { endpoint: lock.emulatorUrl, emulators: true };
  } catch {
    // No runtime holds the directory.
  }
  return { emulators: false };
}

export function useAwsTarget(target: AwsTarget): void {
  if (!target.endpoint) return;
  setAwsVariables({
    AWS_ENDPOINT_URL: target.endpoint,
    ...(target.emulators ? { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } : {}),
  });
}
