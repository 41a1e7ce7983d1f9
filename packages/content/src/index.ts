export type { ContentDeps } from './deps';
export type { DocumentInput, IndexRequest } from './indexing';
export { embeddingText, indexDocuments, indexSources, patchDocuments, resolveProfile } from './indexing';
export type { SearchRequest, SearchResult } from './search';
export { hitText, listProfiles, searchContent, snippet } from './search';
export { content } from './wiring';
