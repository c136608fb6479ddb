-- CreateTable
CREATE TABLE "run_rollups" (
    "run_id" UUID NOT NULL,
    "load_start" TIMESTAMPTZ(0) NOT NULL,
    "load_seconds" DOUBLE PRECISION NOT NULL,
    "windows" JSONB NOT NULL,
    "computed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_rollups_pkey" PRIMARY KEY ("run_id")
);

-- CreateTable
CREATE TABLE "run_rollup_cells" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "bucket_seconds" INTEGER NOT NULL,
    "offset_seconds" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "class" TEXT NOT NULL,
    "requests" INTEGER NOT NULL,
    "failures" INTEGER NOT NULL,
    "sum_ms" DOUBLE PRECISION NOT NULL,
    "min_ms" DOUBLE PRECISION NOT NULL,
    "max_ms" DOUBLE PRECISION NOT NULL,
    "buckets" BYTEA NOT NULL,

    CONSTRAINT "run_rollup_cells_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "comparison_cache" (
    "key" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "run_ids" TEXT NOT NULL,
    "view" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "comparison_cache_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "run_rollup_cells_run_id_bucket_seconds_offset_seconds_idx" ON "run_rollup_cells"("run_id", "bucket_seconds", "offset_seconds");

-- CreateIndex
CREATE INDEX "comparison_cache_workspace_id_idx" ON "comparison_cache"("workspace_id");

-- AddForeignKey
ALTER TABLE "run_rollups" ADD CONSTRAINT "run_rollups_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_rollup_cells" ADD CONSTRAINT "run_rollup_cells_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "run_rollups"("run_id") ON DELETE CASCADE ON UPDATE CASCADE;
