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
