/**
 * The one configuration reader, and the settings of the core package. Every package's env.ts parses its
 * variables with `parseEnv` at module load, so a bad setting fails at start; nothing else reads process.env.
 */
import { z } from 'zod';

/** `POOLING_URL` → `poolingUrl`. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Lowercase<Head>}${Capitalize<CamelCase<Tail>>}`
  : Lowercase<S>;

/** The output key of a variable: `TESSERA_POOLING_URL` → `poolingUrl`, `AWS_REGION` → `awsRegion`. */
export type SettingKey<Variable extends string> = Variable extends `TESSERA_${infer Rest}`
  ? CamelCase<Rest>
  : CamelCase<Variable>;

/** Parsed settings: each variable's value under its camelCase key, optional where the variable is. */
export type Settings<Variables> = {
  [Variable in keyof Variables as Variable extends string
    ? SettingKey<Variable>
    : never]: Variables[Variable];
};

export function settingKey<Variable extends string>(variable: Variable): SettingKey<Variable> {
  return variable
    .replace(/^TESSERA_/, '')
    .toLowerCase()
    .replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase()) as SettingKey<Variable>;
}

/**
 * Parses the variables of `schema` (keyed by variable name) from `source`, process.env by default. An empty
 * variable counts as unset, so it takes its default. Throws `Invalid <label> settings: <VARIABLE>: <problem>`
 * naming every bad variable. The answer has camelCase keys without the `TESSERA_` prefix.
 */
export function parseEnv<Schema extends z.ZodType<Record<string, unknown>>>(
  label: string,
  schema: Schema,
  source: Record<string, string | undefined> = process.env,
): Settings<z.output<Schema>> {
  const set = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = schema.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
    );
    throw new Error(`Invalid ${label} settings: ${problems.join('; ')}`);
  }
  return Object.fromEntries(
    Object.entries(parsed.data).map(([variable, value]) => [settingKey(variable), value]),
  ) as Settings<z.output<Schema>>;
}

export const coreEnv = parseEnv(
  'core',
  z.object({
    TESSERA_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    /** Comma-separated crash points for recovery tests (see failpoints.ts). */
    TESSERA_FAILPOINTS: z.string().default(''),
  }),
);
