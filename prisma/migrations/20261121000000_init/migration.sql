-- CreateEnum
CREATE TYPE "StudyStatus" AS ENUM ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'ABORTED');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('QUEUED', 'PROVISIONING', 'RUNNING', 'ANALYZING', 'SUCCEEDED', 'FAILED', 'ABORTED');

-- CreateEnum
CREATE TYPE "StepName" AS ENUM ('PROVISION', 'BASELINE', 'LOAD', 'COLLECT', 'ANALYZE', 'TEARDOWN');

-- CreateEnum
CREATE TYPE "StepStatus" AS ENUM ('RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED');

-- CreateTable
CREATE TABLE "workspaces" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "targets" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "targets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workloads" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "workloads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "studies" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" "StudyStatus" NOT NULL DEFAULT 'QUEUED',
    "repetitions" INTEGER NOT NULL DEFAULT 1,
    "run_order" TEXT NOT NULL DEFAULT 'sequential',
    "seed" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "studies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "study_id" UUID,
    "target_id" UUID NOT NULL,
    "workload_id" UUID NOT NULL,
    "repetition" INTEGER NOT NULL DEFAULT 1,
    "status" "RunStatus" NOT NULL DEFAULT 'QUEUED',
    "target_spec" JSONB NOT NULL,
    "workload_spec" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "load_started_at" TIMESTAMPTZ(3),
    "load_finished_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "k6_version" TEXT,
    "k6_exit_code" INTEGER,
    "thresholds_ok" BOOLEAN,
    "error" TEXT,
    "summary" JSONB,
    "k6_summary" JSONB,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_steps" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "name" "StepName" NOT NULL,
    "status" "StepStatus" NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "detail" JSONB,
    "error" TEXT,

    CONSTRAINT "run_steps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "result_seconds" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "ts" TIMESTAMPTZ(0) NOT NULL,
    "name" TEXT NOT NULL,
    "class" TEXT NOT NULL,
    "requests" INTEGER NOT NULL,
    "failures" INTEGER NOT NULL,
    "sum_ms" DOUBLE PRECISION NOT NULL,
    "min_ms" DOUBLE PRECISION NOT NULL,
    "max_ms" DOUBLE PRECISION NOT NULL,
    "buckets" BYTEA NOT NULL,

    CONSTRAINT "result_seconds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "load_seconds" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "ts" TIMESTAMPTZ(0) NOT NULL,
    "vus" INTEGER NOT NULL,
    "vus_max" INTEGER NOT NULL,
    "bytes_sent" DOUBLE PRECISION NOT NULL,
    "bytes_received" DOUBLE PRECISION NOT NULL,
    "iterations" INTEGER NOT NULL,
    "dropped_iterations" INTEGER NOT NULL,

    CONSTRAINT "load_seconds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "infra_points" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "replicas" INTEGER NOT NULL,
    "cpu_percent" DOUBLE PRECISION,
    "detail" JSONB,

    CONSTRAINT "infra_points_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_events" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "level" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "data" JSONB,

    CONSTRAINT "run_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "workspaces_slug_key" ON "workspaces"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "targets_workspace_id_name_key" ON "targets"("workspace_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "workloads_workspace_id_name_key" ON "workloads"("workspace_id", "name");

-- CreateIndex
CREATE INDEX "studies_workspace_id_created_at_idx" ON "studies"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "runs_workspace_id_created_at_idx" ON "runs"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "runs_study_id_idx" ON "runs"("study_id");

-- CreateIndex
CREATE INDEX "runs_status_idx" ON "runs"("status");

-- CreateIndex
CREATE UNIQUE INDEX "run_steps_run_id_name_key" ON "run_steps"("run_id", "name");

-- CreateIndex
CREATE INDEX "result_seconds_run_id_ts_idx" ON "result_seconds"("run_id", "ts");

-- CreateIndex
CREATE INDEX "load_seconds_run_id_ts_idx" ON "load_seconds"("run_id", "ts");

-- CreateIndex
CREATE INDEX "infra_points_run_id_ts_idx" ON "infra_points"("run_id", "ts");

-- CreateIndex
CREATE INDEX "run_events_run_id_ts_idx" ON "run_events"("run_id", "ts");

-- AddForeignKey
ALTER TABLE "targets" ADD CONSTRAINT "targets_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workloads" ADD CONSTRAINT "workloads_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "studies" ADD CONSTRAINT "studies_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_study_id_fkey" FOREIGN KEY ("study_id") REFERENCES "studies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "targets"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_workload_id_fkey" FOREIGN KEY ("workload_id") REFERENCES "workloads"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_steps" ADD CONSTRAINT "run_steps_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "result_seconds" ADD CONSTRAINT "result_seconds_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "load_seconds" ADD CONSTRAINT "load_seconds_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "infra_points" ADD CONSTRAINT "infra_points_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_events" ADD CONSTRAINT "run_events_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
