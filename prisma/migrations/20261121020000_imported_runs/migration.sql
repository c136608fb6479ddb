-- Runs imported from plain k6 result files have no target or workload.
ALTER TABLE "runs" ALTER COLUMN "target_id" DROP NOT NULL,
ALTER COLUMN "workload_id" DROP NOT NULL,
ALTER COLUMN "target_spec" DROP NOT NULL,
ALTER COLUMN "workload_spec" DROP NOT NULL,
ADD COLUMN "source" TEXT NOT NULL DEFAULT 'opsbench',
ADD COLUMN "name" TEXT;
