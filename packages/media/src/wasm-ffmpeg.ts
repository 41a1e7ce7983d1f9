/**
 * The fallback decoder where no native ffmpeg exists (macOS, arm64): `@ffmpeg/core`, ffmpeg compiled to
 * WebAssembly for browsers. Its UMD script runs in a `vm` context that looks like a web worker, so nothing global
 * changes in this process. It has an in-memory file system: inputs are copied in and outputs copied out, so it
 * takes files up to WASM_MAX_INPUT_BYTES and is about ten times slower than the native binary.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { MediaToolError } from './errors';
import { type Ffmpeg, FfmpegExitError, type FfmpegResult, type FfmpegRunOptions } from './ffmpeg';

export const WASM_MAX_INPUT_BYTES = 512 * 1024 * 1024;

interface EmscriptenFs {
  writeFile(file: string, data: Uint8Array): void;
  readFile(file: string): Uint8Array;
  readdir(dir: string): string[];
  mkdirTree?(dir: string): void;
  mkdir(dir: string): void;
  unlink(file: string): void;
  analyzePath(file: string): { exists: boolean };
}

interface FfmpegCore {
  FS: EmscriptenFs;
  exec(...args: string[]): number;
  setLogger(logger: (entry: { type: string; message: string }) => void): void;
  ret: number;
}

type CreateCore = (options: Record<string, unknown>) => Promise<FfmpegCore>;

const require = createRequire(import.meta.url);
let loaded: { create: CreateCore; wasm: Buffer } | undefined;

async function loadCore(): Promise<{ create: CreateCore; wasm: Buffer }> {
  if (loaded) return loaded;
  const script = await readFile(require.resolve('@ffmpeg/core'), 'utf8');
  const wasm = await readFile(require.resolve('@ffmpeg/core/wasm'));
  const module = { exports: {} as unknown };
  const sandbox: Record<string, unknown> = {
    module,
    exports: module.exports,
    location: { href: 'file:///ffmpeg-core/' },
    importScripts: () => {},
    console,
    performance,
    crypto,
    TextDecoder,
    TextEncoder,
    URL,
    setTimeout,
    clearTimeout,
  };
  sandbox.self = sandbox;
  vm.runInNewContext(script, sandbox, { filename: 'ffmpeg-core.js' });
  const create = module.exports as CreateCore;
  if (typeof create !== 'function') throw new MediaToolError('@ffmpeg/core did not export its factory');
  loaded = { create, wasm };
  return loaded;
}

function mkdirs(fs: EmscriptenFs, dir: string): void {
  let current = '';
  for (const part of dir.split('/').filter(Boolean)) {
    current += `/${part}`;
    if (!fs.analyzePath(current).exists) fs.mkdir(current);
  }
}

export class WasmFfmpeg implements Ffmpeg {
  readonly name = 'ffmpeg.wasm:@ffmpeg/core';

  async run(args: string[], options: FfmpegRunOptions & { keep?: RegExp }): Promise<FfmpegResult> {
    options.signal?.throwIfAborted();
    const lines: string[] = [];
    const core = await this.core(lines);
    for (const input of options.inputs) {
      const size = (await stat(input)).size;
      if (size > WASM_MAX_INPUT_BYTES) {
        throw new MediaToolError(
          `${path.basename(input)} has ${size} bytes; the WebAssembly ffmpeg holds files in memory and takes at most ${WASM_MAX_INPUT_BYTES}: set TESSERA_FFMPEG_PATH to a native ffmpeg`,
        );
      }
      mkdirs(core.FS, path.dirname(input));
      core.FS.writeFile(input, await readFile(input));
    }
    if (options.outputDir) mkdirs(core.FS, options.outputDir);
    const code = core.exec('-nostdin', '-hide_banner', ...args);
    if (options.outputDir) {
      await mkdir(options.outputDir, { recursive: true });
      for (const file of core.FS.readdir(options.outputDir)) {
        if (file === '.' || file === '..') continue;
        const full = path.join(options.outputDir, file);
        await writeFile(full, core.FS.readFile(full));
      }
    }
    return { code, stderr: lines.join('\n') };
  }

  async *stream(args: string[], options: FfmpegRunOptions): AsyncIterable<Buffer> {
    const at = args.indexOf('pipe:1');
    if (at < 0) throw new MediaToolError('stream() needs an output on pipe:1');
    const out = '/tmp/stream.out';
    const lines: string[] = [];
    const core = await this.core(lines);
    for (const input of options.inputs) {
      mkdirs(core.FS, path.dirname(input));
      core.FS.writeFile(input, await readFile(input));
    }
    mkdirs(core.FS, '/tmp');
    const code = core.exec('-nostdin', '-hide_banner', ...args.slice(0, at), out, ...args.slice(at + 1));
    if (code !== 0) throw new FfmpegExitError(code, lines.join('\n'));
    const data = core.FS.readFile(out);
    for (let offset = 0; offset < data.length; offset += 1 << 20) {
      yield Buffer.from(data.subarray(offset, offset + (1 << 20)));
    }
  }

  private async core(lines: string[]): Promise<FfmpegCore> {
    const { create, wasm } = await loadCore();
    const keep = (line: string) => {
      lines.push(line);
      if (lines.length > 5000) lines.splice(0, lines.length - 5000);
    };
    // A fresh instance per run: the build's exec() is meant to run once.
    const core = await create({ wasmBinary: wasm, locateFile: (file: string) => file });
    core.setLogger(({ message }) => keep(message));
    return core;
  }
}
