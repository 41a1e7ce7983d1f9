/**
 * vitest global setup of the moto run (vitest.moto.config.ts): starts moto's server, a second AWS emulator
 * independent of the in-process ones, on a free loopback port, points every runtime the tests start at it
 * (TESSERA_TEST_AWS_ENDPOINT_URL, read by support/runtime.ts), and stops it when the run ends.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

export default async function setup(): Promise<() => Promise<void>> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const moto = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  moto.stdout.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  moto.stderr.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => moto.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (moto.exitCode !== null) throw new Error(`moto's server exited with ${moto.exitCode}:\n${output}`);
    const up = await fetch(`${url}/moto-api/`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      moto.kill('SIGKILL');
      throw new Error(
        `moto's server did not answer within 60 s (is moto installed for python3?):\n${output}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  process.env.TESSERA_TEST_AWS_ENDPOINT_URL = url;
  return async () => {
    moto.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (moto.exitCode === null && moto.signalCode === null) moto.kill('SIGKILL');
  };
}
