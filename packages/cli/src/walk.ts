/**
 * Walks a source tree for `tessera index`: honours every `.gitignore` on the way down, skips `node_modules`
 * and VCS folders, binaries and files over the size limit, and never leaves the root through a symlink.
 */
import { realpathSync } from 'node:fs';
import { lstat, open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isCodeFile } from '@tessera/extractors/languages';
import ignore, { type Ignore } from 'ignore';

/** Text files next to code whose entities the local pass extracts (nodes only). */
export const TEXT_EXTENSIONS = new Set(['.md', '.txt', '.rst']);

export const MAX_FILE_BYTES = 1024 * 1024;

const ALWAYS_SKIPPED = new Set(['node_modules', '.git', '.hg', '.svn']);

export interface WalkedFile {
  /** Path relative to the root, with forward slashes: the file's source id. */
  relative: string;
  absolute: string;
  size: number;
}

export interface Walk {
  root: string;
  code: WalkedFile[];
  text: WalkedFile[];
  skipped: { relative: string; reason: string }[];
}

interface Rules {
  /** Directory (relative to the root) the rules' patterns are relative to. */
  base: string;
  matcher: Ignore;
}

async function rulesOf(dir: string, base: string): Promise<Rules | undefined> {
  try {
    const text = await readFile(path.join(dir, '.gitignore'), 'utf8');
    return { base, matcher: ignore().add(text) };
  } catch {
    return undefined;
  }
}

function ignored(rules: Rules[], relative: string, isDir: boolean): boolean {
  for (const rule of rules) {
    const inside = rule.base === '' ? relative : relative.slice(rule.base.length + 1);
    if (rule.base !== '' && !relative.startsWith(`${rule.base}/`)) continue;
    if (rule.matcher.ignores(isDir ? `${inside}/` : inside)) return true;
  }
  return false;
}

async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

const within = (root: string, target: string) => target === root || target.startsWith(`${root}${path.sep}`);

export async function walkTree(rootArgument: string, maxBytes = MAX_FILE_BYTES): Promise<Walk> {
  const root = realpathSync(path.resolve(rootArgument));
  if (!(await stat(root)).isDirectory()) throw new Error(`${rootArgument} is not a directory`);
  const walk: Walk = { root, code: [], text: [], skipped: [] };

  const visit = async (dir: string, relativeDir: string, inherited: Rules[]) => {
    const own = await rulesOf(dir, relativeDir);
    const rules = own ? [...inherited, own] : inherited;
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    for (const entry of entries) {
      const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
      const absolute = path.join(dir, entry.name);
      let isDir = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        // A link is followed only when it stays inside the root; directories through links are not walked
        // (they could loop), their files are reached where they really are.
        const target = await realpath(absolute).catch(() => undefined);
        if (!target || !within(root, target)) {
          walk.skipped.push({ relative, reason: 'symlink leading outside the root' });
          continue;
        }
        if ((await lstat(target)).isDirectory()) continue;
        isDir = false;
      }
      if (isDir) {
        if (ALWAYS_SKIPPED.has(entry.name) || ignored(rules, relative, true)) continue;
        await visit(absolute, relative, rules);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      if (ignored(rules, relative, false)) continue;
      const extension = path.extname(entry.name).toLowerCase();
      const isCode = isCodeFile(entry.name);
      if (!isCode && !TEXT_EXTENSIONS.has(extension)) continue;
      const { size } = await stat(absolute);
      if (size > maxBytes) {
        walk.skipped.push({ relative, reason: `over ${Math.round(maxBytes / 1024)} KB` });
        continue;
      }
      if (size === 0) continue;
      if (await looksBinary(absolute)) {
        walk.skipped.push({ relative, reason: 'binary content' });
        continue;
      }
      (isCode ? walk.code : walk.text).push({ relative, absolute, size });
    }
  };
  await visit(root, '', []);
  return walk;
}
