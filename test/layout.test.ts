/**
 * The direction of dependencies: packages/ holds libraries, which functions/, stacks/ and the local runtime
 * build on, never the reverse. The runtime package is the one exception: it is the application that serves
 * functions/.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Package names a library may not depend on, and the directories they live in. */
const APPLICATIONS: Record<string, string> = {
  '@tessera/functions': 'functions',
  '@tessera/stacks': 'stacks',
  '@tessera/runtime': 'packages/runtime',
};
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
const SOURCE = /\.(c|m)?(t|j)sx?$/;
/** `from '…'`, `import '…'`, `import('…')`, `require('…')`, `export … from '…'`. */
const SPECIFIER = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*(['"])([^'"\n]+)\1/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !file.split(path.sep).includes('node_modules'));
}

/** The application a specifier of `file` names, if any. */
function applicationOf(specifier: string, file: string, root: string): string | undefined {
  if (specifier.startsWith('.')) {
    const target = path
      .relative(root, path.resolve(path.dirname(file), specifier))
      .split(path.sep)
      .join('/');
    return Object.keys(APPLICATIONS).find((name) => {
      const dir = APPLICATIONS[name]!;
      return target === dir || target.startsWith(`${dir}/`);
    });
  }
  return Object.keys(APPLICATIONS).find((name) => specifier === name || specifier.startsWith(`${name}/`));
}

/** Every dependency or import of a library under `root/packages` on an application, naming its file. */
function layoutViolations(root: string): string[] {
  const violations: string[] = [];
  const packagesDir = path.join(root, 'packages');
  for (const entry of readdirSync(packagesDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(packagesDir, entry.name);
    const manifestFile = path.join(dir, 'package.json');
    let manifest: Record<string, unknown>;
    try {
      manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (manifest.name === '@tessera/runtime') continue;
    const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');
    for (const field of DEPENDENCY_FIELDS) {
      for (const name of Object.keys((manifest[field] ?? {}) as Record<string, string>)) {
        if (name in APPLICATIONS) violations.push(`${relative(manifestFile)}: ${field} lists ${name}`);
      }
    }
    for (const file of sourceFiles(dir)) {
      for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
        const specifier = match[2]!;
        const application = applicationOf(specifier, file, root);
        if (application) violations.push(`${relative(file)}: imports '${specifier}' (${application})`);
      }
    }
  }
  return violations;
}

describe('package layout', () => {
  it('has no library under packages/ depending on or importing functions/, stacks/ or the runtime', () => {
    expect(layoutViolations(repoRoot)).toEqual([]);
  });

  it('keeps the emulators on the platform alone among the workspace packages', () => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'packages/emulators/package.json'), 'utf8'));
    const workspace = Object.keys(manifest.dependencies).filter((name) => name.startsWith('@tessera/'));
    expect(
      workspace.every((name) => ['@tessera/platform', '@tessera/core'].includes(name)),
      workspace.join(),
    ).toBe(true);
  });

  describe('given libraries that reach into the applications', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'tessera-layout-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    function write(file: string, content: string): void {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), content);
    }

    it('names each offending manifest and file', () => {
      write('packages/good/package.json', JSON.stringify({ name: '@tessera/good', dependencies: {} }));
      write('packages/good/src/index.ts', "import { z } from 'zod';\nexport const a = z.string();\n");
      write(
        'packages/bad/package.json',
        JSON.stringify({ name: '@tessera/bad', devDependencies: { '@tessera/runtime': '0.1.0' } }),
      );
      write('packages/bad/test/a.test.ts', "import { startRuntime } from '@tessera/runtime';\n");
      write('packages/bad/src/b.ts', "export { routes } from '../../../functions/routes';\n");
      write('packages/bad/src/c.ts', "const s = await import('@tessera/stacks');\n");
      write('packages/bad/src/d.ts', "import type { X } from '@tessera/functions/routes';\n");
      write('packages/runtime/package.json', JSON.stringify({ name: '@tessera/runtime' }));
      write('packages/runtime/src/e.ts', "import('@tessera/functions/routes');\n");

      expect(layoutViolations(root).sort()).toEqual([
        'packages/bad/package.json: devDependencies lists @tessera/runtime',
        "packages/bad/src/b.ts: imports '../../../functions/routes' (@tessera/functions)",
        "packages/bad/src/c.ts: imports '@tessera/stacks' (@tessera/stacks)",
        "packages/bad/src/d.ts: imports '@tessera/functions/routes' (@tessera/functions)",
        "packages/bad/test/a.test.ts: imports '@tessera/runtime' (@tessera/runtime)",
      ]);
    });
  });
});
