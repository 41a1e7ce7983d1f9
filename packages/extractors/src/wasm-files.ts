/**
 * The `.wasm` files the code extractor loads: web-tree-sitter's runtime and one grammar per language, each
 * shipped by an npm package. The Lambda bundles carry copies beside their code (stacks/bundle.ts reads this
 * list), where the extractor looks first.
 */
import type { Grammar } from './languages';

export interface WasmFile {
  /** npm package shipping the file at its root. */
  pkg: string;
  file: string;
}

export const GRAMMAR_WASM: Record<Grammar, WasmFile> = {
  python: { pkg: 'tree-sitter-python', file: 'tree-sitter-python.wasm' },
  javascript: { pkg: 'tree-sitter-javascript', file: 'tree-sitter-javascript.wasm' },
  typescript: { pkg: 'tree-sitter-typescript', file: 'tree-sitter-typescript.wasm' },
  tsx: { pkg: 'tree-sitter-typescript', file: 'tree-sitter-tsx.wasm' },
  go: { pkg: 'tree-sitter-go', file: 'tree-sitter-go.wasm' },
};

/** web-tree-sitter loads its runtime from beside its own module: beside the bundle, once bundled. */
export const RUNTIME_WASM: WasmFile = { pkg: 'web-tree-sitter', file: 'web-tree-sitter.wasm' };

/** Every file, for the bundler. */
export const WASM_FILES: readonly WasmFile[] = [RUNTIME_WASM, ...Object.values(GRAMMAR_WASM)];
