/** Errors of the code extractor. File content never causes one: only an unsupported path or a missing grammar. */
import { ServiceUnavailableError, UnsupportedMediaTypeError } from '@tessera/core';

/** The path's extension is not one the code extractor parses. */
export class UnsupportedCodeFileError extends UnsupportedMediaTypeError {
  readonly path: string;

  constructor(path: string) {
    super(
      `'${path}' is not a code file the extractor supports (.py .js .jsx .mjs .cjs .ts .tsx .mts .cts .go)`,
    );
    this.path = path;
  }
}

/** A grammar's `.wasm` file (or the web-tree-sitter runtime) could not be loaded: an installation problem. */
export class GrammarUnavailableError extends ServiceUnavailableError {
  readonly grammar: string;

  constructor(grammar: string, reason: string, cause?: unknown) {
    super('grammar_unavailable', `tree-sitter grammar '${grammar}' could not be loaded: ${reason}`, {
      grammar,
    });
    this.grammar = grammar;
    if (cause !== undefined) this.cause = cause;
  }
}
