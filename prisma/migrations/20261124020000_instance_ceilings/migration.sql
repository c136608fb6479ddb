-- AlterTable
ALTER TABLE "workspace_limits" ADD COLUMN "max_runs_per_day" INTEGER NOT NULL DEFAULT 500;

-- CreateTable
CREATE TABLE "instance_ceilings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "max_duration_seconds" INTEGER NOT NULL,
    "max_vus" INTEGER NOT NULL,
    "max_arrival_rate" INTEGER NOT NULL,
    "max_study_runs" INTEGER NOT NULL,
    "max_concurrent_runs" INTEGER NOT NULL,
    "max_http_series" INTEGER NOT NULL,
    "run_creations_per_minute" INTEGER NOT NULL,
    "max_generators" INTEGER NOT NULL,
    "max_runs_per_day" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "instance_ceilings_pkey" PRIMARY KEY ("id")
);

