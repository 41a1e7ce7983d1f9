export type { CodeChunk, CodeChunkKind } from './chunking/code';
export { CODE_CHUNK_CHARS, chunkCode } from './chunking/code';
export { chunkText, TEXT_CHUNK_CHARS } from './chunking/text';
export {
  CLAIM_PART_CHARS,
  EVIDENCE_FALLBACK_CHARS,
  jsonLlm,
  OpenAIClaimExtractor,
  PRIOR_ENTITY_LIMIT,
  splitForClaims,
  verbatimEvidence,
} from './documents/claims';
export type { CrossModalEdge, CrossModalOptions, Dominance } from './documents/cross-modal';
export {
  CrossModalMention,
  DEFAULT_WINDOW_S,
  isGenericPersonMention,
  leadingPerson,
  linkCrossModal,
  MentionSource,
  mentionsInWindow,
  nameTokens,
  PERSON_INDICATOR_WORDS,
  SUBJECT_DOMINANCE_SHARE,
  sharedToken,
  VIDEO_SUBJECT_PROVENANCE,
  videoSubject,
} from './documents/cross-modal';
export { CompromiseEntityExtractor, proseOf } from './documents/embedded';
export { ClaimExtractionError, EntityExtractionError } from './documents/errors';
export { createClaimExtractor, createEntityExtractor, llmEndpointOptions } from './documents/factory';
export { filterEntities, MIN_ENTITY_CHARS } from './documents/filter';
export type { GlinerEntityExtractorOptions } from './documents/gliner';
export { GlinerEntityExtractor } from './documents/gliner';
export type {
  DocumentEdge,
  DocumentGraph,
  DocumentNode,
  ExtractDocumentGraphInput,
  SegmentReferences,
} from './documents/graph';
export {
  CLAIMS_SKIPPED,
  DEFAULT_CONCURRENCY,
  DocumentSegment,
  extractDocumentGraph,
} from './documents/graph';
export type { OpenAIEntityExtractorOptions } from './documents/llm-entities';
export { OpenAIEntityExtractor } from './documents/llm-entities';
export type {
  ClaimContext,
  ClaimExtractor,
  EntityExtractor,
  ExtractionContext,
  PriorEntity,
} from './documents/types';
export { Claim, ExtractedEntity } from './documents/types';
export type { EntityLabel, Predicate } from './documents/vocabulary';
export { ENTITY_LABELS, normalizePredicate, PREDICATE_ALIASES, PREDICATES } from './documents/vocabulary';
export type { ExtractorsEnv } from './env';
export { extractorsEnv, parseExtractorsEnv } from './env';
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
