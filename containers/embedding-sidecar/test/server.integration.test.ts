/**
 * The embedding sidecar against a loopback server speaking Infinity's API (integration: ffmpeg samples the
 * frames), called by @tessera/media's own sidecar client, so the contract is checked from both ends; and its
 * entry as a plain Node process.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EmbeddingSidecar } from '@tessera/media';
import { closedPortUrl, type SeenRequest, useServers } from '@tessera/testing';
import { sceneVideo, speechWav } from '@tessera/testing/media';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingSidecarServer, type SidecarOptions } from '../src';

const servers = useServers();
let dir: string;
let video: Buffer;
let speech: Buffer;
let open: Server[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'embed-sidecar-'));
  video = await readFile(
    await sceneVideo(
      dir,
      'clip.mp4',
      [
        { text: 'ONE', seconds: 2, background: 'white' },
        { text: 'TWO', seconds: 2, background: 'navy' },
      ],
      'none',
    ),
  );
  speech = await readFile(await speechWav(dir, 'speech.wav', 'The samples glowed in the dark.'));
});

afterEach(async () => {
  await Promise.all(open.map((server) => new Promise((resolve) => server.close(resolve))));
  open = [];
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An Infinity server on loopback: `/models` lists the model; `/embeddings` answers a vector per input. */
function infinity(
  options: { model?: string; dim?: number; answer?: (body: { input: string[] }) => unknown } = {},
) {
  const dim = options.dim ?? 4;
  return servers.start((seen: SeenRequest) => {
    if (seen.method === 'GET' && seen.url === '/models') {
      return {
        status: 200,
        json: { object: 'list', data: [{ id: options.model ?? 'clip', object: 'model' }] },
      };
    }
    if (seen.method === 'POST' && seen.url === '/embeddings') {
      const body = seen.body as { input: string[]; modality: string };
      if (options.answer) return { status: 200, json: options.answer(body) };
      return {
        status: 200,
        json: {
          object: 'list',
          model: options.model ?? 'clip',
          // Input i gets the vector with 3 at position i % dim (and 4 at the next), so averages can be checked.
          data: body.input.map((_, index) => ({
            object: 'embedding',
            index,
            embedding: Array.from({ length: dim }, (_, k) =>
              k === index % dim ? 3 : k === (index + 1) % dim ? 4 : 0,
            ),
          })),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        },
      };
    }
    return { status: 404, json: { detail: 'Not Found' } };
  });
}

async function sidecar(upstream: string, options: Partial<SidecarOptions> = {}) {
  const server = await new EmbeddingSidecarServer({
    kind: 'video',
    infinityUrl: upstream,
    model: 'clip',
    modelRevision: 'rev-1',
    videoFrames: 4,
    audioSeconds: 30,
    maxBodyBytes: 10 * 1024 * 1024,
    ...options,
  }).listen(0, '127.0.0.1');
  open.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the video embedding sidecar (integration)', () => {
  it('answers ready with the model and its revision once Infinity serves the model', async () => {
    const url = await sidecar((await infinity()).url);
    const client = new EmbeddingSidecar({ url, kind: 'video', dim: 4 });
    expect(await client.waitReady()).toEqual({ model: 'clip', model_revision: 'rev-1' });
  });

  it('answers 503 while Infinity is down or serves another model', async () => {
    const down = await fetch(`${await sidecar(await closedPortUrl())}/health`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({
      status: 'loading',
      detail: expect.stringContaining('did not answer'),
    });
    const other = await fetch(`${await sidecar((await infinity({ model: 'siglip' })).url)}/health`);
    expect(other.status).toBe(503);
    expect(((await other.json()) as { detail: string }).detail).toBe('Infinity serves siglip, not clip');
  });

  it('embeds a video as the mean of its sampled frames’ image vectors, normalised', async () => {
    const upstream = await infinity();
    const client = new EmbeddingSidecar({ url: await sidecar(upstream.url), kind: 'video', dim: 4 });
    const embedding = await client.embedMedia(video, 'video/mp4');
    const request = upstream.requests.find((r) => r.url === '/embeddings')!.body as {
      input: string[];
      modality: string;
      model: string;
    };
    expect(request.modality).toBe('image');
    expect(request.model).toBe('clip');
    expect(request.input).toHaveLength(4);
    for (const image of request.input) expect(image).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    // Four inputs: each position gets one 3 and one 4, so the mean is uniform and normalises to 0.5 each.
    expect([...embedding.vector].map((v) => Number(v.toFixed(6)))).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(embedding).toMatchObject({ model: 'clip', model_revision: 'rev-1' });
  });

  it('embeds texts in the same space, normalised, in order', async () => {
    const upstream = await infinity();
    const client = new EmbeddingSidecar({ url: await sidecar(upstream.url), kind: 'video', dim: 4 });
    const [first, second] = await client.embedText(['a lab', 'a river']);
    expect([...first!.vector]).toEqual([0.6, 0.8, 0, 0].map((v) => Math.fround(v)));
    expect([...second!.vector]).toEqual([0, 0.6, 0.8, 0].map((v) => Math.fround(v)));
    expect((upstream.requests.at(-1)!.body as { modality: string }).modality).toBe('text');
  });

  it('refuses media it cannot decode, bodies out of contract and the other kind with 4xx', async () => {
    const url = await sidecar((await infinity()).url);
    const post = (route: string, body: unknown) =>
      fetch(`${url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const garbage = await post('/embed/video', {
      video: Buffer.from('not a video at all').toString('base64'),
      mime_type: 'video/mp4',
    });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { error: string }).error).toMatch(/^the video cannot be decoded/);
    expect((await post('/embed/video', { video: '!!!' })).status).toBe(400);
    expect((await post('/embed/text', { texts: [] })).status).toBe(400);
    expect((await post('/embed/audio', { audio: speech.toString('base64') })).status).toBe(404);
    const notJson = await fetch(`${url}/embed/text`, { method: 'POST', body: '{' });
    expect(notJson.status).toBe(400);
  });

  it('answers 413 for a body over its limit', async () => {
    const url = await sidecar((await infinity()).url, { maxBodyBytes: 1000 });
    const response = await fetch(`${url}/embed/video`, {
      method: 'POST',
      body: JSON.stringify({ video: video.toString('base64') }),
    });
    expect(response.status).toBe(413);
  });

  it('answers 502 when Infinity answers out of contract, and 503 when it is down', async () => {
    const garbage = await infinity({ answer: () => ({ data: [{ index: 0 }] }) });
    const bad = await fetch(`${await sidecar(garbage.url)}/embed/text`, {
      method: 'POST',
      body: JSON.stringify({ texts: ['x'] }),
    });
    expect(bad.status).toBe(502);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^Infinity answered out of contract/);
    const down = await fetch(`${await sidecar(await closedPortUrl())}/embed/text`, {
      method: 'POST',
      body: JSON.stringify({ texts: ['x'] }),
    });
    expect(down.status).toBe(503);
  });
});

describe('the audio embedding sidecar (integration)', () => {
  it('sends the clip to Infinity as 48 kHz mono WAV', async () => {
    const upstream = await infinity({ model: 'clap' });
    const url = await sidecar(upstream.url, { kind: 'audio', model: 'clap', modelRevision: 'r2' });
    const client = new EmbeddingSidecar({ url, kind: 'audio' });
    const embedding = await client.embedMedia(speech, 'audio/wav');
    expect(embedding).toMatchObject({ model: 'clap', model_revision: 'r2' });
    const request = upstream.requests.find((r) => r.url === '/embeddings')!.body as {
      input: string[];
      modality: string;
    };
    expect(request.modality).toBe('audio');
    const wav = Buffer.from(request.input[0]!.replace(/^data:audio\/wav;base64,/, ''), 'base64');
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(48_000);
    expect(wav.readUInt16LE(22)).toBe(1);
  });
});

describe('the sidecar entry (integration: a plain Node process)', () => {
  it('serves the contract on its port, from its settings', async () => {
    const upstream = await infinity();
    const root = path.resolve(import.meta.dirname, '../../..');
    const child = spawn(process.execPath, ['--import', 'tsx', 'containers/embedding-sidecar/src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        EMBED_KIND: 'video',
        INFINITY_URL: upstream.url,
        EMBED_MODEL: 'clip',
        EMBED_MODEL_REVISION: 'rev-9',
        PORT: '0',
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        const take = (chunk: Buffer) => {
          output += chunk.toString();
          const match = /on (http:\/\/\S+) /.exec(output);
          if (match) resolve(match[1]!);
        };
        child.stdout.on('data', take);
        child.stderr.on('data', take);
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
      });
      const health = await fetch(`${url}/health`);
      expect(await health.json()).toEqual({ status: 'ready', model: 'clip', model_revision: 'rev-9' });
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('refuses to start without its model settings', async () => {
    const root = path.resolve(import.meta.dirname, '../../..');
    const child = spawn(process.execPath, ['--import', 'tsx', 'containers/embedding-sidecar/src/main.ts'], {
      cwd: root,
      env: { ...process.env, EMBED_KIND: 'video', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(output).toContain('Invalid embedding sidecar settings: EMBED_MODEL');
  });
});
