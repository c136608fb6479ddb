-- AlterTable
ALTER TABLE "runs" ADD COLUMN "series_pruned_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN "series_retention_days" INTEGER;
