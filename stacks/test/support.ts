/** CDK apps for tests (cloud assemblies in one temporary directory, removed by `remove`) and stacks to test in. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type FunctionSettings, Functions, Queues, Storage, type StoreGrants } from '@tessera/stacks';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

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

/** The logical id of a construct's CloudFormation resource. */
export const logicalId = (stack: Stack, construct: IConstruct) =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

export interface Composed {
  stack: Stack;
  storage: Storage;
  queues: Queues;
  functions: Functions;
}

/**
 * A stack with storage, queues and the functions factory, for the constructs built on them; `grants`
 * replaces the modules' grants, `settings` are the deploy settings.
 */
export function compose(
  app: App,
  id: string,
  stage = 'test',
  grants?: Record<string, StoreGrants>,
  settings?: FunctionSettings,
): Composed {
  const stack = new Stack(app, id);
  const storage = new Storage(stack, 'Storage');
  const queues = new Queues(stack, 'Queues');
  const functions = new Functions(stack, 'Functions', { stage, storage, queues, grants, settings });
  return { stack, storage, queues, functions };
}
