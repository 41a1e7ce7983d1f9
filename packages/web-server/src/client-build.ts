/**
 * The client must be built before it is served: `npm start` and `npm run web` build `web/` when its build is
 * missing or older than its sources, so a fresh clone works after `npm install` and an edit is never served
 * stale. The build goes to a fresh directory that then replaces the old one, so a server reading the old
 * build never sees a half-written one.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { clientBuildEnvironment } from './env';

/** Newest modification time among `paths` and every file below them (0 when none exists). */
function newestMtime(paths: string[]): number {
  let newest = 0;
  for (const entry of paths) {
    if (!existsSync(entry)) continue;
    const stats = statSync(entry);
    if (stats.isDirectory()) {
      for (const child of readdirSync(entry, { recursive: true, withFileTypes: true })) {
        if (child.isFile())
          newest = Math.max(newest, statSync(path.join(child.parentPath, child.name)).mtimeMs);
      }
    } else newest = Math.max(newest, stats.mtimeMs);
  }
  return newest;
}

function sourcesOf(webDir: string): string[] {
  return ['index.html', 'vite.config.ts', 'package.json', 'tsconfig.json', 'src', 'public'].map((name) =>
    path.join(webDir, name),
  );
}

/** Whether `clientDir` (the `dist` of the workspace at `webDir`) holds a build at least as new as its sources. */
export function clientBuildIsFresh(webDir: string, clientDir: string): boolean {
  const entry = path.join(clientDir, 'index.html');
  if (!existsSync(entry)) return false;
  return statSync(entry).mtimeMs >= newestMtime(sourcesOf(webDir));
}

/**
 * Builds the client of `webDir` into `clientDir` unless its build is fresh. Answers what it did; a directory
 * that is not a client workspace (a deployed build, say) is served as it is.
 */
export async function ensureClientBuild(
  clientDir: string,
  report: (line: string) => void = () => {},
): Promise<'fresh' | 'built' | 'prebuilt'> {
  const webDir = path.dirname(clientDir);
  if (!existsSync(path.join(webDir, 'vite.config.ts'))) return 'prebuilt';
  if (clientBuildIsFresh(webDir, clientDir)) return 'fresh';
  report('Building the web client (once, and after each change to web/)…');
  const viteBin = path.join(
    path.dirname(createRequire(path.join(webDir, 'package.json')).resolve('vite/package.json')),
    'bin/vite.js',
  );
  const staging = `${clientDir}.build-${process.pid}-${Date.now()}`;
  const output = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [viteBin, 'build', '--outDir', staging, '--emptyOutDir'], {
      cwd: webDir,
      env: clientBuildEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, text }));
  });
  if (output.code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`The web client build failed (exit ${output.code}):\n${output.text.slice(-4000)}`);
  }
  const retired = `${clientDir}.old-${process.pid}-${Date.now()}`;
  if (existsSync(clientDir)) renameSync(clientDir, retired);
  renameSync(staging, clientDir);
  rmSync(retired, { recursive: true, force: true });
  return 'built';
}
