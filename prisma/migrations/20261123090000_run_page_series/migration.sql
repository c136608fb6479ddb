-- AlterTable
ALTER TABLE "run_rollups" ADD COLUMN     "page_series" JSONB;
