/**
 * ffmpeg, the one decoder of every media pipeline: the static build `@ffmpeg-installer/linux-x64` ships (or the
 * binary `TESSERA_FFMPEG_PATH` names), else the `@ffmpeg/core` WebAssembly build. Files are passed by path and
 * PCM is read from ffmpeg's output as a stream, so a long file never sits whole in memory (native binary).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { mediaEnv } from './env';
import { CorruptMediaError, MediaToolError } from './errors';

export interface FfmpegRunOptions {
  /** Input files the arguments name (the WebAssembly build copies them into its own file system). */
  inputs: string[];
  /** A directory the run writes files into (copied back out of the WebAssembly build's file system). */
  outputDir?: string;
  signal?: AbortSignal;
}

export interface FfmpegResult {
  code: number;
  /** stderr, bounded: lines a caller asked to keep plus the last lines. */
  stderr: string;
}

/** The port every media function runs ffmpeg through. */
export interface Ffmpeg {
  /** Honest name: the binary's path and version, or the WebAssembly build. */
  readonly name: string;
  /** Runs to the end; `keep` selects stderr lines kept beyond the last 60 (e.g. showinfo's frame lines). */
  run(args: string[], options: FfmpegRunOptions & { keep?: RegExp }): Promise<FfmpegResult>;
  /** Runs with output on `pipe:1` and yields stdout as it comes; throws when ffmpeg ends with an error. */
  stream(args: string[], options: FfmpegRunOptions): AsyncIterable<Buffer>;
}

const TAIL_LINES = 60;

/** Collects stderr lines: all lines matching `keep`, and the last TAIL_LINES of the others. */
class StderrLines {
  private readonly kept: string[] = [];
  private readonly tail: string[] = [];
  private partial = '';

  constructor(private readonly keep?: RegExp) {}

  push(chunk: string): void {
    const lines = (this.partial + chunk).split(/\r?\n|\r/);
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    if (this.keep?.test(line)) this.kept.push(line);
    else {
      this.tail.push(line);
      if (this.tail.length > TAIL_LINES) this.tail.shift();
    }
  }

  text(): string {
    if (this.partial) this.line(this.partial);
    this.partial = '';
    return [...this.kept, ...this.tail].join('\n');
  }
}

export class NativeFfmpeg implements Ffmpeg {
  readonly name: string;

  constructor(readonly binary: string) {
    this.name = `ffmpeg:${binary}`;
  }

  run(args: string[], options: FfmpegRunOptions & { keep?: RegExp }): Promise<FfmpegResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, ['-nostdin', '-hide_banner', ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
        signal: options.signal,
      });
      const stderr = new StderrLines(options.keep);
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
      let failed: unknown;
      child.on('error', (error) => {
        // Not started: nothing to wait for. Aborted: answered once it exited, so the files it was writing
        // are closed before the caller removes them.
        if (child.pid === undefined) reject(toolError(this.binary, error));
        else failed ??= error;
      });
      child.on('close', (code) => {
        if (failed) reject(toolError(this.binary, failed));
        else resolve({ code: code ?? -1, stderr: stderr.text() });
      });
    });
  }

  async *stream(args: string[], options: FfmpegRunOptions): AsyncIterable<Buffer> {
    const child = spawn(this.binary, ['-nostdin', '-hide_banner', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: options.signal,
    });
    const stderr = new StderrLines();
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
    let spawnError: unknown;
    const closed = new Promise<number>((resolve) => {
      child.on('error', (error) => {
        spawnError = error;
      });
      child.on('close', (code) => resolve(code ?? -1));
    });
    try {
      for await (const chunk of child.stdout) yield chunk as Buffer;
    } finally {
      // A consumer that stops early (or an abort) ends ffmpeg rather than leaving it blocked on a full pipe,
      // and waits for it to exit, so nothing it writes outlives the call.
      if (child.exitCode === null && child.pid !== undefined) child.kill('SIGKILL');
      if (child.pid !== undefined) await closed;
    }
    const code = await closed;
    if (spawnError) throw toolError(this.binary, spawnError);
    if (code !== 0) throw new FfmpegExitError(code, stderr.text());
  }
}

function toolError(binary: string, error: unknown): Error {
  if ((error as Error).name === 'AbortError') return error as Error;
  return new MediaToolError(`ffmpeg at ${binary} could not run: ${(error as Error).message}`, error);
}

/** ffmpeg ended with an error code; `stderr` says why. */
export class FfmpegExitError extends Error {
  constructor(
    readonly code: number,
    readonly stderr: string,
  ) {
    super(`ffmpeg exited with ${code}: ${lastError(stderr)}`);
    this.name = 'FfmpegExitError';
  }
}

/** The most telling line of ffmpeg's stderr: the last one that is not a banner or statistics line. */
export function lastError(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^(frame=|size=|video:|\[Parsed_showinfo)/.test(line));
  return lines.at(-1) ?? 'no message';
}

const require = createRequire(import.meta.url);

/** Path of the static binary `@ffmpeg-installer/linux-x64` ships, when installed and executable. */
export function installedFfmpegPath(): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  try {
    const binary = path.join(
      path.dirname(require.resolve('@ffmpeg-installer/linux-x64/package.json')),
      'ffmpeg',
    );
    accessSync(binary, constants.X_OK);
    return binary;
  } catch {
    return undefined;
  }
}

let shared: Ffmpeg | undefined;

/** The process's ffmpeg: `TESSERA_FFMPEG_PATH`, else the packaged static binary, else the WebAssembly build. */
export async function defaultFfmpeg(): Promise<Ffmpeg> {
  if (shared) return shared;
  const binary = mediaEnv.ffmpegPath ?? installedFfmpegPath();
  if (binary) shared = new NativeFfmpeg(binary);
  else {
    const { WasmFfmpeg } = await import('./wasm-ffmpeg');
    shared = new WasmFfmpeg();
  }
  return shared;
}

export interface MediaProbe {
  /** Seconds; undefined when the container does not say (the pipelines then measure it by decoding). */
  duration: number | undefined;
  video?: { codec: string; width: number; height: number; fps: number | undefined };
  audio?: { codec: string; sampleRate: number; channels: string };
}

const DURATION = /Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)/;
const STREAM = /^\s*Stream #\d+:\d+.*?: (Video|Audio): (\w+)(.*)$/gm;

/** What `ffmpeg -i <file>` printed about its input; undefined when it found no input it could read. */
export function parseProbe(stderr: string): MediaProbe | undefined {
  if (!/^Input #0/m.test(stderr)) return undefined;
  const duration = DURATION.exec(stderr);
  const probe: MediaProbe = {
    duration: duration
      ? Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3])
      : undefined,
  };
  for (const [, type, codec, rest] of stderr.matchAll(STREAM)) {
    if (type === 'Video' && !probe.video) {
      const size = /, (\d{1,5})x(\d{1,5})/.exec(rest!);
      // Cover art in an audio file is a one-picture "video" stream; it is not a video.
      if (!size || /attached pic/.test(rest!)) continue;
      const fps = /, ([\d.]+(?:k)?) fps/.exec(rest!)?.[1];
      probe.video = {
        codec: codec!,
        width: Number(size[1]),
        height: Number(size[2]),
        fps: fps ? Number.parseFloat(fps) * (fps.endsWith('k') ? 1000 : 1) : undefined,
      };
    } else if (type === 'Audio' && !probe.audio) {
      const audio = /, (\d+) Hz, ([^,]+)/.exec(rest!);
      if (audio) probe.audio = { codec: codec!, sampleRate: Number(audio[1]), channels: audio[2]!.trim() };
    }
  }
  return probe;
}

/** Streams and duration of a media file; `CorruptMediaError` when ffmpeg cannot read it at all. */
export async function probeMedia(
  ffmpeg: Ffmpeg,
  file: string,
  name = path.basename(file),
): Promise<MediaProbe> {
  const { stderr } = await ffmpeg.run(['-i', file], { inputs: [file] });
  const probe = parseProbe(stderr);
  if (!probe)
    throw new CorruptMediaError(`${name} cannot be decoded: ${lastError(stderr).replaceAll(file, name)}`);
  if (!probe.video && !probe.audio) throw new CorruptMediaError(`${name} has no audio or video stream`);
  return probe;
}
