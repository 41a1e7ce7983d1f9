export { answerText } from './answer';
export {
  autoFile,
  autoFileAll,
  type CompletedRun,
  FILING_AGENTS,
  FILING_MIN_ENTITIES,
  FILING_MIN_TURNS,
  filingReason,
  turnsOf,
} from './autofile';
export { DEFAULT_LOCK_TIMING, DynamoPageLocks, type LockTiming } from './dynamo-locks';
export { LanceWikiStore } from './lance-wiki-store';
export { holdAll, lockOf, type PageLocks, ProcessPageLocks, SESSIONS_LOCK } from './locks';
export {
  EMPTY_CHARS,
  type Entity,
  entitiesOf,
  INDEX_SLUG,
  indexAfter,
  lint,
  STALE_MS,
  sessionPage,
  sessionSlug,
  snippet,
  sourcesOf,
  topicAfterSession,
} from './pages';
export {
  deletePage,
  getPage,
  lintWiki,
  publicPage,
  type SaveInput,
  type SaveOnce,
  type SessionSave,
  saveSession,
  saveSessions,
  searchWiki,
  WIKI_SCHEMA,
  type WikiDeps,
  wikiIndex,
  wikiSchemaOf,
} from './service';
export { applyChanges, type PageChange, type StoredPage, type WikiStore } from './store';
export { PageIndex } from './text-index';
export { wiki, wikiData } from './wiring';
