// @opsbench/db, the only owner of the Prisma client; every importer uses this index (and @opsbench/db/auth, the
// Better Auth instance, below). What is where in src/:
//   auth/         accounts (Better Auth), API tokens, members and invitations, instance settings, the request's member
//   comparisons/  runs or study cells side by side, the stored comparisons, a window of a comparison's series
//   k6-ingest/    runs whose k6 ran elsewhere: a k6 result file imported, an external run's ingested lines
//   migrations/   the SQL migration applier, its command line (migrate-cli.ts) and the application's database role
//   runs/         the worker's run store, the run view, JSON columns, per-second cells and rollups, flags, infra,
//                 load segments, recovery of unfinished runs, retention of raw series
//   series/       a workspace's series of runs and one series' trend points with their intervals
//   scope/        every read and write scoped to a workspace (workspace-scope.ts, one file per area)
//   shares/       share links
//   studies/      study writes, the study view and tables, its JSON columns
//   workspaces/   price catalogs, sealed credentials (secret-box), host ownership tokens, the instance's ceilings
//   (root)        client.ts (the Prisma client), errors.ts, outage.ts (riding out a database blip), json-column.ts and
//                 spec-columns.ts (JSON columns checked on write); generated/ is Prisma's client (git-ignored)
export { createDb, pingDatabase, type Db, type DbOptions } from "./client";
export { applyMigrations, listMigrations, defaultMigrationsDir } from "./migrations/migrate";
export { ensureAppRole, type AppRoleOptions } from "./migrations/app-role";
export { ConflictError, NotFoundError } from "./errors";
export { BaselineRefused } from "./scope/runs-scope";
export {
  RECENT_TICKS,
  scheduleTargetOf,
  scheduleTicks,
  type ScheduleRow,
  type ScheduleTarget,
  type ScheduleTicks,
  type ScheduleTickRow,
  type ScheduleView,
} from "./scope/schedules-scope";
export { pruneExpiredSeries } from "./runs/retention";
export { workspaceScope, defaultWorkspaceId, DEFAULT_WORKSPACE_SLUG, isUuid, type WorkspaceScope } from "./scope/workspace-scope";
export { hostVerificationToken, type TargetVerification } from "./workspaces/host-verification";
export { runStore, type RunStore, type InfraRow, type ResultBatch, type SegmentOfRows } from "./runs/run-store";
export { isDatabaseOutage, retryWhileDown, retryingMethods, type OutageWait } from "./outage";
export { loadResultCells } from "./runs/result-cells";
export { loadRunView, loadWindowSummary, type RunView, type RunViewOptions } from "./runs/run-view";
export { recordedProvenance, type ProvenanceFilter } from "./runs/run-provenance";
export { DEFAULT_POINTS, MAX_POINTS, type SeriesItem, type SeriesPoint, type SeriesPoints, seriesOfRun } from "./series/series";
export type { PageArgs } from "./scope/page-where";
export type { RunBrief, RunSurroundings } from "./runs/run-surroundings";
export { loadRunInfra, runInfraPoints, type RunInfra, type InfraSeriesPoint } from "./runs/run-infra";
export { createImportedRun, K6_IMPORT_SOURCE, type ImportedRunInput } from "./k6-ingest/imported-run";
export { forgetComparisons, forgetComparisonsOf } from "./comparisons/comparison-cache";
export {
  loadComparison,
  type ComparisonView,
  type ComparisonGroup,
  type ComparisonGroupInput,
  type ComparisonOptions,
  type ComparisonWindow,
} from "./comparisons/comparison";
export { storeRunRollup, loadRunRollups, type StoredRollup } from "./runs/run-rollups";
export { loadMeasuredCells, runWarmup } from "./runs/measured-cells";
export { loadRunSaturation, loadRunSaturations } from "./runs/run-saturation";
export { loadComparisonWindow, windowResolution, type LoadBucket, type SeriesWindow } from "./comparisons/comparison-window";
export { resolveShareLink } from "./shares/share-links";
export { createStudy, abortStudy, studyStore, type StudyStore } from "./studies/study-store";
export { loadStudyView, type StudyView, type StudyCellView, type StudyRunView } from "./studies/study-view";
export { loadStudyTables, type StudyTablesView } from "./studies/study-tables";
export { addRunFlags, plannedRepetitions } from "./runs/run-flags";
export {
  unfinishedRuns,
  unfinishedStudies,
  closeOpenSteps,
  resultSecondsWritten,
  endUnfinishedRun,
  endUnfinishedStudy,
  runOfLoadNetwork,
} from "./runs/run-recovery";
export { priceCatalogStore, type PriceCatalogStore, type StoredPriceCatalog } from "./workspaces/price-catalogs";
export type { AuditAction, AuditEntry } from "./scope/audit-scope";
// The Better Auth instance (createAuth) is @opsbench/db/auth: loading Better Auth costs a process about 0.4 s of
// CPU, and only the web app and `opsbench admin create` build one.
export {
  API_TOKEN_DEFAULT_DAYS,
  API_TOKEN_PREFIX,
  CLIENT_ADDRESS_HEADER,
  DISABLED_AUTH_PATHS,
  INVITATION_HEADER,
  OIDC_PROVIDER_ID,
  type AuthMail,
  type AuthOptions,
  PASSWORD_RESET_SECONDS,
  type OidcOptions,
} from "./auth/auth-options";
export type { Auth } from "./auth/create-auth";
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
export { attachInvitationSecret, invitationSecretMatches, loadOpenInvitation } from "./auth/invitation-secrets";
export {
  createInvitationLink,
  listWorkspaceMembers,
  listPendingInvitations,
  listMemberships,
  listWorkspaces,
} from "./auth/workspace-members";
export { loadInstanceCeilings, setInstanceCeilings } from "./workspaces/instance-ceilings";
export { sealSecret, openSecret, sealContext, SecretKeyError } from "./workspaces/secret-box";
export {
  openCredential,
  openSealedCredential,
  openCredentialsOfKind,
  finalRunIds,
  markCredentialChecked,
  credentialRefusalForRequester,
  type CredentialsScope,
} from "./scope/credentials-scope";
export { openScriptSecrets, runScriptEnv, type ScriptSecretItem, type ScriptSecretsScope } from "./scope/script-secrets-scope";
export {
  type DeliveryAttempt,
  type DeliveryRow,
  type NotificationsScope,
  type OpenedDelivery,
  openDelivery,
  recordDeliveryAttempt,
  changeAlreadyTold,
  recordNotification,
  runNotice,
  type SmtpSettingsRow,
  type WebhookRow,
  workspaceIdentity,
} from "./scope/notifications-scope";
export {
  type ExporterInput,
  type ExporterRow,
  type ExportersScope,
  type ExportRow,
  type ExportStatus,
  type OpenedExport,
  openExport,
  recordExportAttempt,
  recordRunExports,
  runExportFacts,
} from "./scope/exporters-scope";
export {
  databaseClockOffsetMs,
  generatorTotals,
  segmentStore,
  SEGMENT_STATUSES,
  FINAL_SEGMENT_STATUSES,
  type SegmentStore,
  type SegmentStatus,
  type RunSegmentRow,
} from "./runs/run-segments";
export {
  createExternalRun,
  ingestRunLines,
  IngestRefused,
  parseSegmentHeader,
  EXTERNAL_SOURCE,
  DEFAULT_INGEST_TOKEN_HOURS,
} from "./k6-ingest/external-runs";
export { createFirstAccount, hasAccounts, type FirstAccount } from "./auth/first-account";
