import { extractCode } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';
import { descriptions, edgeList, node } from './support';

const SOURCE = `import type { Request } from './http';
import defaultConfig, * as config from './config';
import fs = require('node:fs');

/** A tenant's identity. */
export interface TenantId {
  orgId: string;
  describe(): string;
}

/**
 * Either a tenant id or its canonical string.
 */
export type TenantRef = TenantId | string;

export enum Tier {
  Free,
  Paid,
}

export abstract class Store<T> implements Iterable<T> {
  abstract get(id: string): Promise<T>;
  load(id: string): T;
  load(id: string, fallback?: T): T {
    return this.cache.get(id) ?? fallback ?? parse(fs.readFileSync(id, 'utf8'));
  }
  *[Symbol.iterator](): Iterator<T> {
    yield* this.items.values();
  }
}

export function canonical(ref: TenantRef): string {
  return typeof ref === 'string' ? ref : \`\${ref.orgId}\`.toLowerCase();
}

export const resolve = async <T,>(store: Store<T>, id: string): Promise<T> => await store.get<T>(id);
`;

describe('TypeScript extraction', () => {
  it('emits interfaces and type aliases as class-like definitions with their JSDoc', async () => {
    const result = await extractCode('packages/core/src/tenants.ts', SOURCE);
    expect(result.language).toBe('typescript');
    expect(descriptions(result)).toEqual({
      tenants: 'Module tenants (typescript)',
      Request: 'Imported symbol: Request',
      defaultConfig: 'Imported symbol: defaultConfig',
      config: 'Imported symbol: config',
      fs: 'Imported symbol: fs',
      TenantId: "A tenant's identity.",
      TenantRef: 'Either a tenant id or its canonical string.',
      Store: 'class definition: Store',
      get: 'method definition: get',
      load: 'method definition: load',
      'Symbol.iterator': 'method definition: Symbol.iterator',
      canonical: 'function definition: canonical',
      resolve: 'function definition: resolve',
    });
    expect(node(result, 'TenantId')?.mentions[0]?.segment_id).toBe('class:TenantId');
    expect(node(result, 'TenantRef')?.mentions[0]?.segment_id).toBe('class:TenantRef');
  });

  it('links definitions, imports and calls (enums and interface members are not definitions)', async () => {
    const result = await extractCode('packages/core/src/tenants.ts', SOURCE);
    expect(edgeList(result)).toEqual(
      [
        'tenants imports Request',
        'tenants imports defaultConfig',
        'tenants imports config',
        'tenants imports fs',
        'tenants defines TenantId',
        'tenants defines TenantRef',
        'tenants defines Store',
        'tenants defines canonical',
        'tenants defines resolve',
        'Store defines get',
        'Store defines load',
        'Store defines Symbol.iterator',
        'load calls get',
        'load calls parse',
        'load calls readFileSync',
        'Symbol.iterator calls values',
        'canonical calls toLowerCase',
        'resolve calls get',
      ].sort(),
    );
  });

  it('parses TSX with the TSX grammar', async () => {
    const result = await extractCode(
      'web/src/TenantList.tsx',
      `import { useState } from 'react';

interface Props { tenants: string[] }

/** Lists the tenants of an organization. */
export function TenantList({ tenants }: Props) {
  const [open, setOpen] = useState<boolean>(false);
  return (
    <ul onClick={() => setOpen(!open)}>
      {tenants.map((t) => <li key={t}>{format(t)}</li>)}
    </ul>
  );
}
`,
    );
    expect(result.language).toBe('typescript');
    expect(descriptions(result)).toEqual({
      TenantList: 'Module TenantList (typescript)',
      useState: 'Imported symbol: useState',
      Props: 'interface definition: Props',
    });
    expect(node(result, 'TenantList')?.mentions.map((m) => m.segment_id)).toEqual([
      'module',
      'function:TenantList',
    ]);
    expect(edgeList(result)).toEqual(
      [
        'TenantList imports useState',
        'TenantList defines Props',
        'TenantList defines TenantList',
        'TenantList calls useState',
        'TenantList calls setOpen',
        'TenantList calls map',
        'TenantList calls format',
      ].sort(),
    );
  });
});
