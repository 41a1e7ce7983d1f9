/** CDK apps for tests: cloud assemblies in one temporary directory, removed by `remove`. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';

export function testApps(): { create: () => App; remove: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'tessera-stacks-test-'));
  return {
    create: () =>
      new App({
        outdir: mkdtempSync(path.join(root, 'cdk.out-')),
        // Staging would copy every asset, the ~200 MB search layer included, into each assembly; the
        // templates (asset hashes included) are the same without it.
        context: { 'aws:cdk:disable-asset-staging': true },
      }),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
