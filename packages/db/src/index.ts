export { createDb, type Db, type DbOptions } from "./client";
export { applyMigrations, listMigrations, defaultMigrationsDir } from "./migrate";
export { ensureAppRole, type AppRoleOptions } from "./app-role";
export { ConflictError, NotFoundError } from "./errors";
export { BaselineRefused } from "./scope/runs-scope";
export { pruneExpiredSeries } from "./retention";
export { workspaceScope, defaultWorkspaceId, DEFAULT_WORKSPACE_SLUG, isUuid, type WorkspaceScope } from "./workspace-scope";
export { hostVerificationToken, type TargetVerification } from "./host-verification";
export { runStore, type RunStore, type InfraRow, type ResultBatch, type SegmentOfRows } from "./run-store";
export { isDatabaseOutage, retryWhileDown, retryingMethods, type OutageWait } from "./outage";
export { loadResultCells } from "./result-cells";
export { loadRunView, loadWindowSummary, type RunView, type RunViewOptions } from "./run-view";
export { loadRunInfra, runInfraPoints, type RunInfra, type InfraSeriesPoint } from "./run-infra";
export { createImportedRun, K6_IMPORT_SOURCE, type ImportedRunInput } from "./imported-run";
export { forgetComparisons, forgetComparisonsOf } from "./comparison-cache";
export {
  loadComparison,
  type ComparisonView,
  type ComparisonGroup,
  type ComparisonGroupInput,
  type ComparisonOptions,
} from "./comparison";
export { storeRunRollup, loadRunRollups, type StoredRollup } from "./run-rollups";
export { loadMeasuredCells, runWarmup } from "./measured-cells";
export { loadComparisonWindow, windowResolution, type SeriesWindow } from "./comparison-window";
export { resolveShareLink } from "./share-links";
export { createStudy, abortStudy, studyStore, type StudyStore } from "./study-store";
export { loadStudyView, type StudyView, type StudyCellView, type StudyRunView } from "./study-view";
export { loadStudyTables, type StudyTablesView } from "./study-tables";
export { addRunFlags, plannedRepetitions } from "./run-flags";
export {
  unfinishedRuns,
  unfinishedStudies,
  closeOpenSteps,
  resultSecondsWritten,
  endUnfinishedRun,
  endUnfinishedStudy,
  runOfLoadNetwork,
} from "./run-recovery";
export { priceCatalogStore, type PriceCatalogStore, type StoredPriceCatalog } from "./price-catalogs";
export type { AuditAction, AuditEntry } from "./scope/audit-scope";
export {
  createAuth,
  API_TOKEN_DEFAULT_DAYS,
  API_TOKEN_PREFIX,
  CLIENT_ADDRESS_HEADER,
  DISABLED_AUTH_PATHS,
  INVITATION_HEADER,
  OIDC_PROVIDER_ID,
  type Auth,
  type AuthOptions,
  type OidcOptions,
} from "./auth/create-auth";
export { authenticateRequest, tokenFromHeaders, type RequestMember } from "./auth/request-member";
export { createApiToken, listApiTokens, revokeApiToken, type ApiTokenListItem } from "./auth/api-tokens";
export {
  loadInstanceSettings,
  makeSetupToken,
  SETUP_HEADER,
  setOpenSignUp,
  setSignUpWorkspace,
  setupTokenValid,
  storedAuthSecret,
} from "./auth/instance-settings";
export {
  attachInvitationSecret,
  createInvitationLink,
  invitationSecretMatches,
  loadOpenInvitation,
  listWorkspaceMembers,
  listPendingInvitations,
  listMemberships,
} from "./auth/workspace-members";
export { loadInstanceCeilings, setInstanceCeilings } from "./instance-ceilings";
export { sealSecret, openSecret, sealContext, SecretKeyError } from "./secret-box";
export {
  openCredential,
  openSealedCredential,
  openCredentialsOfKind,
  finalRunIds,
  markCredentialChecked,
  credentialRefusalForRequester,
  type CredentialsScope,
} from "./scope/credentials-scope";
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
export { createFirstAccount, type FirstAccount } from "./auth/first-account";
