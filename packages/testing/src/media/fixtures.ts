/**
 * Test media made on the spot: speech by espeak-ng (Debian package `espeak-ng`), videos and images with text
 * rendered by the packaged ffmpeg's drawtext (font from Debian's `fonts-dejavu-core`). Nothing is shipped.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** The static ffmpeg `@ffmpeg-installer/linux-x64` ships (the one @tessera/media runs), when installed. */
function installedFfmpegPath(): string | undefined {
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

export const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf';

export function ffmpegPath(): string {
  const binary = installedFfmpegPath();
  if (!binary)
    throw new Error('@ffmpeg-installer/linux-x64 is not installed: the media tests need its ffmpeg');
  return binary;
}

function requireFont(): void {
  if (!existsSync(FONT)) throw new Error(`${FONT} is missing: apt-get install -y fonts-dejavu-core`);
}

export async function ffmpeg(args: string[]): Promise<void> {
  await run(ffmpegPath(), ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

/** Speech of `text` as a 22.05 kHz mono WAV (espeak-ng's voice). */
export async function speechWav(dir: string, name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  try {
    await run('espeak-ng', ['-s', '150', '-w', file, text]);
  } catch (error) {
    throw new Error(`espeak-ng failed (apt-get install -y espeak-ng): ${(error as Error).message}`);
  }
  return file;
}

/** Text drawn for a filter, with ffmpeg's drawtext escaping. */
function drawtext(
  text: string,
  options: { enable?: string; color?: string; size?: number; y?: number },
): string {
  const escaped = text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/:/g, '\\:');
  return [
    `drawtext=fontfile=${FONT}`,
    `text='${escaped}'`,
    `fontsize=${options.size ?? 48}`,
    `fontcolor=${options.color ?? 'black'}`,
    'x=40',
    `y=${options.y ?? 150}`,
    ...(options.enable ? [`enable='${options.enable}'`] : []),
  ].join(':');
}

export interface Scene {
  text: string;
  seconds: number;
  /** Background colour (white text on dark ones). */
  background: string;
}

/**
 * An MP4 (H.264) of scenes, each a plain background with its text, plus an audio track: the given WAV, or
 * silence when `audio` is 'silence', or none.
 */
export async function sceneVideo(
  dir: string,
  name: string,
  scenes: Scene[],
  audio: string | 'silence' | 'none',
): Promise<string> {
  requireFont();
  const file = path.join(dir, name);
  const total = scenes.reduce((sum, s) => sum + s.seconds, 0);
  const filters: string[] = [];
  let at = 0;
  for (const scene of scenes) {
    const enable = `between(t,${at},${at + scene.seconds - 0.001})`;
    filters.push(`drawbox=x=0:y=0:w=iw:h=ih:color=${scene.background}:t=fill:enable='${enable}'`);
    const dark = !['white', 'yellow', 'lightgray'].includes(scene.background);
    filters.push(drawtext(scene.text, { enable, color: dark ? 'white' : 'black' }));
    at += scene.seconds;
  }
  const inputs = ['-f', 'lavfi', '-i', `color=c=white:s=640x360:d=${total}:r=10`];
  if (audio === 'silence') inputs.push('-f', 'lavfi', '-i', `anullsrc=r=16000:cl=mono`);
  else if (audio !== 'none') inputs.push('-i', audio);
  const audioArgs =
    audio === 'none' ? ['-an'] : ['-c:a', 'aac', '-b:a', '64k', '-af', 'apad', '-t', String(total)];
  await ffmpeg([
    ...inputs,
    '-vf',
    filters.join(','),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    ...audioArgs,
    file,
  ]);
  return file;
}

/** A PNG (or another format by extension) with lines of text on white. */
export async function textImage(
  dir: string,
  name: string,
  lines: string[],
  size = '900x300',
): Promise<string> {
  requireFont();
  const file = path.join(dir, name);
  const filters = lines.map((line, i) => drawtext(line, { y: 60 + i * 80, size: 44 }));
  await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    `color=c=white:s=${size}`,
    '-frames:v',
    '1',
    ...(filters.length ? ['-vf', filters.join(',')] : []),
    file,
  ]);
  return file;
}
