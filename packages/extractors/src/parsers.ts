/**
 * The web-tree-sitter runtime and one parser and query per grammar, loaded on first use and kept for the life
 * of the process (a Lambda container parses many files with the same parsers).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser, Query, type Tree } from 'web-tree-sitter';
import { GrammarUnavailableError } from './errors';
import { go } from './grammars/go';
import { javascript, typescript } from './grammars/javascript';
import { python } from './grammars/python';
import type { LanguageSpec } from './grammars/spec';
import type { Grammar } from './languages';

export interface LoadedGrammar {
  grammar: Grammar;
  parser: Parser;
  query: Query;
  spec: LanguageSpec;
}

const require = createRequire(import.meta.url);

/** The npm package and `.wasm` file of each grammar; the packages ship the files, nothing is built. */
const SOURCES: Record<Grammar, { pkg: string; file: string; spec: LanguageSpec }> = {
  python: { pkg: 'tree-sitter-python', file: 'tree-sitter-python.wasm', spec: python },
  javascript: { pkg: 'tree-sitter-javascript', file: 'tree-sitter-javascript.wasm', spec: javascript },
  typescript: { pkg: 'tree-sitter-typescript', file: 'tree-sitter-typescript.wasm', spec: typescript },
  tsx: { pkg: 'tree-sitter-typescript', file: 'tree-sitter-tsx.wasm', spec: typescript },
  go: { pkg: 'tree-sitter-go', file: 'tree-sitter-go.wasm', spec: go },
};

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
  const { pkg, file, spec } = SOURCES[grammar];
  let language: Language;
  try {
    const wasm = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
    language = await Language.load(new Uint8Array(await readFile(wasm)));
  } catch (error) {
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
