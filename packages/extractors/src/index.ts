export type { CodeChunk, CodeChunkKind } from './chunking/code';
export { CODE_CHUNK_CHARS, chunkCode } from './chunking/code';
export { chunkText, TEXT_CHUNK_CHARS } from './chunking/text';
export type { EntityLabel, Predicate } from './documents/vocabulary';
export { ENTITY_LABELS, normalizePredicate, PREDICATE_ALIASES, PREDICATES } from './documents/vocabulary';
export { GrammarUnavailableError, UnsupportedCodeFileError } from './errors';
export { extractCode, parseOnly } from './extract';
export { CODE_EXTENSIONS, isCodeFile, languageOf } from './languages';
export type {
  CodeEdge,
  CodeExtraction,
  CodeLanguage,
  CodeMention,
  CodeNode,
  CodeRelation,
  DefinitionKind,
  ExtractOptions,
} from './types';
