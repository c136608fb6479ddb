export { createDb, type Db } from "./client";
export { applyMigrations, listMigrations, defaultMigrationsDir } from "./migrate";
export { ensureAppRole, type AppRoleOptions } from "./app-role";
export { NotFoundError } from "./errors";
export { workspaceScope, defaultWorkspaceId, DEFAULT_WORKSPACE_SLUG, isUuid, type WorkspaceScope } from "./workspace-scope";
export { runStore, type RunStore, type SegmentOfRows } from "./run-store";
export { loadRunView, loadResultCells, loadWindowSummary, type RunView } from "./run-view";
export { loadRunInfra, type RunInfra, type InfraSeriesPoint } from "./run-infra";
export { createImportedRun, K6_IMPORT_SOURCE, type ImportedRunInput } from "./imported-run";
export { loadComparison, type ComparisonView, type ComparisonGroup, type ComparisonGroupInput } from "./comparison";
export { resolveShareLink } from "./share-links";
export { createStudy, abortStudy, studyStore, type StudyStore } from "./study-store";
export { loadStudyView, type StudyView, type StudyCellView, type StudyRunView } from "./study-view";
export { addRunFlags, plannedRepetitions } from "./run-flags";
export { priceCatalogStore, type PriceCatalogStore, type StoredPriceCatalog } from "./price-catalogs";
export type { AuditAction, AuditEntry } from "./scope/audit-scope";
export { createAuth, API_TOKEN_PREFIX, type Auth, type AuthOptions } from "./auth/create-auth";
export { authenticateRequest, tokenFromHeaders, type RequestMember } from "./auth/request-member";
export { createApiToken, listApiTokens, revokeApiToken, type ApiTokenListItem } from "./auth/api-tokens";
export { loadInstanceSettings, setOpenSignUp, storedAuthSecret } from "./auth/instance-settings";
export { loadOpenInvitation, listWorkspaceMembers, listPendingInvitations, listMemberships } from "./auth/workspace-members";
export {
  databaseClockOffsetMs,
  generatorTotals,
  segmentStore,
  SEGMENT_STATUSES,
  FINAL_SEGMENT_STATUSES,
  type SegmentStore,
  type SegmentStatus,
  type RunSegmentRow,
} from "./run-segments";
export {
  createExternalRun,
  ingestRunLines,
  IngestRefused,
  parseSegmentHeader,
  EXTERNAL_SOURCE,
  DEFAULT_INGEST_TOKEN_HOURS,
} from "./external-runs";
