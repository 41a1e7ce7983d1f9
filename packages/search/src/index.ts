export { arrowSchema, arrowType } from './arrow';
export type { MigrationResult, SearchBackend } from './backend';
export { LanceDatabase, lanceConnection } from './connection';
export type { ContentIndex, QueryVectors, Scored } from './content-index';
export { sqlString, top } from './content-index';
export { LanceSearchBackend } from './lance';
export { LanceContentIndex } from './lance-content-index';
export type { MaintenanceOutcome, MaintenancePolicy } from './lance-maintenance';
export {
  defaultMaintenancePolicy,
  LanceMaintenance,
  lanceMaintenance,
  maintenanceDue,
} from './lance-maintenance';
export type { ScoringOptions } from './lance-scoring';
export type { Relevance } from './metrics';
export { ndcg, precision, recall, reciprocalRank, reciprocalRankFusion } from './metrics';
export {
  InferenceServices,
  nonTextFields,
  Profile,
  ProfileCatalog,
  type ProfileSource,
  STRATEGY_CLASSES,
  strategyClassNames,
  TenantProfiles,
  unknownStrategyClasses,
} from './profiles';
export { type DocumentRow, documentTable, type TokenMatrix } from './rows';
export {
  binaryMaxSim,
  codeWords,
  floatBinaryMaxSim,
  floatMaxSim,
  packSignBits,
  popcount32,
  queryTokenWeights,
  unpackedBitTables,
} from './scoring';
export type { Segment, TableSnapshot } from './snapshot';
export type { Phase, StrategyQuery, Target } from './strategies';
export {
  fuse,
  phaseScores,
  phasesOf,
  RankingStrategy,
  RERANK_DEPTH,
  rank,
  SECOND_PHASE_WEIGHT,
} from './strategies';
export { definitionHash, FieldTemplate, SchemaCatalog, SchemaTemplate } from './templates';
