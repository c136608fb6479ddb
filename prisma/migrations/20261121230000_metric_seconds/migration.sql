-- CreateTable
CREATE TABLE "metric_seconds" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "ts" TIMESTAMPTZ(0) NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "unit" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "passes" INTEGER NOT NULL,
    "sum" DOUBLE PRECISION NOT NULL,
    "min" DOUBLE PRECISION NOT NULL,
    "max" DOUBLE PRECISION NOT NULL,
    "last" DOUBLE PRECISION NOT NULL,
    "buckets" BYTEA,

    CONSTRAINT "metric_seconds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "metric_seconds_run_id_ts_idx" ON "metric_seconds"("run_id", "ts");

-- AddForeignKey
ALTER TABLE "metric_seconds" ADD CONSTRAINT "metric_seconds_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
