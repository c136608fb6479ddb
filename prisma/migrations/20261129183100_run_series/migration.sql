-- Issue 36: a run's series by name (docs/trends.md): runs given one name form a series whatever their target (imported
-- k6 runs have none); a run without one is in its target x workload's series. The trend page and
-- GET /api/v1/series/{key}/points read a series' runs in time order, within a workspace.
-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "series" TEXT;

-- CreateIndex
CREATE INDEX "runs_workspace_id_series_created_at_idx" ON "runs"("workspace_id", "series", "created_at");

-- CreateIndex
CREATE INDEX "runs_workspace_id_target_id_workload_id_created_at_idx" ON "runs"("workspace_id", "target_id", "workload_id", "created_at");
