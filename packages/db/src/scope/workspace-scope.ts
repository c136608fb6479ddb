// Every row belongs to a workspace. This module family (scope/: this file and its
// siblings) is the one place that scopes reads and writes to a workspace: callers
// get a scope and never pass workspaceId into a query themselves. Teams arrive
// later; until then there is "default".
import type { Db } from "../client";
import { loadComparison, type ComparisonGroupInput, type ComparisonOptions } from "../comparisons/comparison";
import { loadComparisonWindow, runsDataEndSeconds } from "../comparisons/comparison-window";
import { loadRunSaturations } from "../runs/run-saturation";
import { targetVerification } from "../workspaces/host-verification";
import { createImportedRun, type ImportedRunInput } from "../k6-ingest/imported-run";
import { priceCatalogStore } from "../workspaces/price-catalogs";
import { retentionScope } from "../runs/retention";
import { auditScope } from "./audit-scope";
import { deletionScope } from "./deletion-scope";
import { credentialsScope } from "./credentials-scope";
import { scriptSecretsScope } from "./script-secrets-scope";
import { definitionsScope } from "./definitions-scope";
import { limitsScope } from "./limits-scope";
import { exportersScope } from "./exporters-scope";
import { notificationsScope } from "./notifications-scope";
import { runsScope } from "./runs-scope";
import { schedulesScope } from "./schedules-scope";
import { seriesScope } from "./series-scope";
import { sharesScope } from "./shares-scope";
import { studiesScope } from "./studies-scope";
import { workspaceAccess } from "./workspace-access";

export { isUuid } from "./workspace-access";

export const DEFAULT_WORKSPACE_SLUG = "default";

export async function defaultWorkspaceId(db: Db): Promise<string> {
  const ws = await db.workspace.upsert({
    where: { slug: DEFAULT_WORKSPACE_SLUG },
    create: { slug: DEFAULT_WORKSPACE_SLUG, name: "Default workspace" },
    update: {},
  });
  return ws.id;
}

export function workspaceScope(db: Db, workspaceId: string) {
  const access = workspaceAccess(db, workspaceId);
  return {
    workspaceId,
    /** Price catalogs: versioned cost models, built-ins seeded from packages/core (price-catalogs.ts). */
    priceCatalogs: priceCatalogStore(db, workspaceId),
    ...definitionsScope(db, workspaceId),
    studies: studiesScope(db, workspaceId, access),
    runs: runsScope(db, workspaceId, access),
    /** Series of runs (a name, or a target x workload) and their trend points (docs/trends.md). */
    series: seriesScope(db, workspaceId),
    /** Runs or study cells side by side (each group: the runs of one cell, or one run). */
    compare: async (groups: ComparisonGroupInput[], opts: ComparisonOptions = {}) => {
      await access.assertRuns(groups.flatMap((g) => g.runIds));
      return loadComparison(db, groups, opts);
    },
    /**
     * A window of the comparison's series at the finest resolution a chart can show (a zoom); without `toSeconds`,
     * to the end of the runs' data (the whole runs, every request the comparison counts).
     */
    compareWindow: async (groups: ComparisonGroupInput[], fromSeconds: number, toSeconds?: number) => {
      const runIds = groups.flatMap((g) => g.runIds);
      await access.assertRuns(runIds);
      return loadComparisonWindow(db, groups, fromSeconds, toSeconds ?? (await runsDataEndSeconds(db, runIds)));
    },
    /** Whether each run found its target's limit (capacity is read only from those that did). */
    saturations: async (runIds: readonly string[]) => {
      await access.assertRuns([...runIds]);
      return loadRunSaturations(db, runIds);
    },
    shares: sharesScope(db, workspaceId, access),
    /** Runs and studies started on a cron pattern, and their ticks (schedules-scope.ts). */
    schedules: schedulesScope(db, workspaceId),
    /** What the workspace may ask of the machine (defaults until an owner sets them). */
    limits: limitsScope(db, workspaceId),
    /** Who created, started, aborted, shared and revoked what. */
    audit: auditScope(db, workspaceId),
    /** Deleting runs, studies, targets and workloads (the aborting and waiting is packages/jobs' delete-resources.ts). */
    deletion: deletionScope(db, workspaceId, access),
    /** How long finished runs keep their raw per-second series (retention.ts). */
    retention: retentionScope(db, workspaceId),
    /** A run brought in from a plain k6 result file (imported-run.ts): written whole, in one transaction. */
    importRun: (input: ImportedRunInput) => createImportedRun(db, workspaceId, input),
    /** Credentials for real platforms: sealed, listed without their secret (the worker opens them). */
    credentials: credentialsScope(db, workspaceId),
    /** Values a run's script is given as __ENV.NAME, sealed; listed by name only (script-secrets-scope.ts). */
    scriptSecrets: scriptSecretsScope(db, workspaceId),
    /** Webhook endpoints, the SMTP settings and the delivery log (docs/notifications.md). */
    notifications: notificationsScope(db, workspaceId),
    /** Results exporters (Prometheus remote write, OTLP) and the log of the runs sent to them (docs/exports.md). */
    exporters: exportersScope(db, workspaceId),
    /** The proof of ownership a target's host needs before it may be loaded (host-verification.ts). */
    targetVerification: (key: string) => targetVerification(db, workspaceId, key),
  };
}
export type WorkspaceScope = ReturnType<typeof workspaceScope>;
