/**
 * The web-tree-sitter runtime and one parser and query per grammar, loaded on first use and kept for the life
 * of the process (a Lambda container parses many files with the same parsers).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Language, Parser, Query, type Tree } from 'web-tree-sitter';
import { GrammarUnavailableError } from './errors';
import { go } from './grammars/go';
import { javascript, typescript } from './grammars/javascript';
import { python } from './grammars/python';
import type { LanguageSpec } from './grammars/spec';
import type { Grammar } from './languages';
import { GRAMMAR_WASM } from './wasm-files';

export interface LoadedGrammar {
  grammar: Grammar;
  parser: Parser;
  query: Query;
  spec: LanguageSpec;
}

const require = createRequire(import.meta.url);

const SPECS: Record<Grammar, LanguageSpec> = { python, javascript, typescript, tsx: typescript, go };

/**
 * A grammar's `.wasm`: beside this module when bundled (a Lambda bundle carries copies, and has no
 * node_modules), else in the npm package that ships it.
 */
async function readGrammar(grammar: Grammar): Promise<Uint8Array> {
  const { pkg, file } = GRAMMAR_WASM[grammar];
  try {
    return new Uint8Array(await readFile(fileURLToPath(new URL(`./${file}`, import.meta.url))));
  } catch {
    return new Uint8Array(
      await readFile(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file)),
    );
  }
}

let runtime: Promise<void> | undefined;
const grammars = new Map<Grammar, Promise<LoadedGrammar>>();

function initRuntime(): Promise<void> {
  runtime ??= Parser.init().catch((error: unknown) => {
    runtime = undefined;
    throw new GrammarUnavailableError('web-tree-sitter', String(error), error);
  });
  return runtime;
}

async function load(grammar: Grammar): Promise<LoadedGrammar> {
  await initRuntime();
  const spec = SPECS[grammar];
  let language: Language;
  try {
    language = await Language.load(await readGrammar(grammar));
  } catch (error) {
    const { pkg, file } = GRAMMAR_WASM[grammar];
    throw new GrammarUnavailableError(grammar, `${pkg}/${file}: ${String(error)}`, error);
  }
  const parser = new Parser();
  parser.setLanguage(language);
  return { grammar, parser, query: new Query(language, spec.query), spec };
}

/** The grammar's parser and query; concurrent first calls share one load, a failed load is retried next time. */
export function loadGrammar(grammar: Grammar): Promise<LoadedGrammar> {
  let loading = grammars.get(grammar);
  if (!loading) {
    loading = load(grammar);
    grammars.set(grammar, loading);
    loading.catch(() => grammars.delete(grammar));
  }
  return loading;
}

/** The file's syntax tree, or null when the parser gives up (it is reset for the next file). */
export function parseSource(loaded: LoadedGrammar, source: string): Tree | null {
  try {
    return loaded.parser.parse(source);
  } catch {
    loaded.parser.reset();
    return null;
  }
}
