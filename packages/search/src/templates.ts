/** Schema templates (`configs/schemas/<name>_schema.json`): loading, validation and definition hashes. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export const FieldTemplate = z.object({
  name: z.string().regex(/^[a-z_][a-z0-9_]*$/, 'lower-case letters, digits and underscores'),
  type: z.string().min(1),
  fulltext: z.boolean().optional(),
  description: z.string().optional(),
});

export const SchemaTemplate = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  description: z.string().optional(),
  document: z.object({ fields: z.array(FieldTemplate).min(1) }),
});
export type FieldTemplate = z.infer<typeof FieldTemplate>;
export type SchemaTemplate = z.infer<typeof SchemaTemplate>;

const SUFFIX = '_schema.json';

/** Stable hash of a definition: key order in the file does not change it. */
export function definitionHash(template: SchemaTemplate): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => key !== 'description')
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([key, inner]) => [key, canonical(inner)]),
      );
    }
    return value;
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(template)))
    .digest('hex')
    .slice(0, 16);
}

/** The shipped templates of one directory, read once. */
export class SchemaCatalog {
  private readonly templates = new Map<string, SchemaTemplate>();

  constructor(readonly schemaDir: string) {
    for (const file of readdirSync(schemaDir)
      .filter((f) => f.endsWith(SUFFIX))
      .sort()) {
      const base = file.slice(0, -SUFFIX.length);
      const raw = JSON.parse(readFileSync(path.join(schemaDir, file), 'utf8'));
      const parsed = SchemaTemplate.safeParse(raw);
      if (!parsed.success) {
        throw new Error(
          `Schema template ${file} is invalid: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
        );
      }
      if (parsed.data.name !== base) {
        throw new Error(`Schema template ${file} names itself '${parsed.data.name}'; expected '${base}'`);
      }
      this.templates.set(base, parsed.data);
    }
  }

  has(base: string): boolean {
    return this.templates.has(base);
  }

  get(base: string): SchemaTemplate | undefined {
    return this.templates.get(base);
  }

  /** Base names, longest first, so prefix matching prefers `video_frames_hd` over `video_frames`. */
  baseNames(): string[] {
    return [...this.templates.keys()].sort((a, b) => b.length - a.length || a.localeCompare(b));
  }
}
