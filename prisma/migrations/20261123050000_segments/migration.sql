-- AlterTable
ALTER TABLE "runs" ADD COLUMN "generators" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "result_seconds" ADD COLUMN "segment" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "load_seconds" ADD COLUMN "segment" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "metric_seconds" ADD COLUMN "segment" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "workspace_limits" ADD COLUMN "max_generators" INTEGER NOT NULL DEFAULT 4;

-- CreateTable
CREATE TABLE "run_segments" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "index" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'QUEUED',
    "worker" TEXT,
    "clock_offset_start_ms" DOUBLE PRECISION,
    "clock_offset_end_ms" DOUBLE PRECISION,
    "cpu_percent" DOUBLE PRECISION,
    "requests" INTEGER,
    "k6_exit_code" INTEGER,
    "k6_summary" JSONB,
    "k6_start_ms" DOUBLE PRECISION,
    "k6_last_ms" DOUBLE PRECISION,
    "error" TEXT,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "lost_at" TIMESTAMPTZ(3),

    CONSTRAINT "run_segments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_ingest_tokens" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "run_ingest_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "run_segments_run_id_index_key" ON "run_segments"("run_id", "index");

-- CreateIndex
CREATE UNIQUE INDEX "run_ingest_tokens_token_hash_key" ON "run_ingest_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "run_ingest_tokens_run_id_idx" ON "run_ingest_tokens"("run_id");

-- AddForeignKey
ALTER TABLE "run_segments" ADD CONSTRAINT "run_segments_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_ingest_tokens" ADD CONSTRAINT "run_ingest_tokens_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
