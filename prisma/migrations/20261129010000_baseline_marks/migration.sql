-- Issue 34: every marking of a run as its target and workload's baseline, kept (baselines holds only the current
-- one): `opsbench compare --baseline-runs N` takes the baseline and the N-1 runs marked before it.
CREATE TABLE "baseline_marks" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "target_id" UUID NOT NULL,
    "workload_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "baseline_marks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "baseline_marks_pair_created_at_idx" ON "baseline_marks"("workspace_id", "target_id", "workload_id", "created_at");

-- CreateIndex
CREATE INDEX "baseline_marks_run_id_idx" ON "baseline_marks"("run_id");

-- AddForeignKey
ALTER TABLE "baseline_marks" ADD CONSTRAINT "baseline_marks_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "baseline_marks" ADD CONSTRAINT "baseline_marks_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "targets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "baseline_marks" ADD CONSTRAINT "baseline_marks_workload_id_fkey" FOREIGN KEY ("workload_id") REFERENCES "workloads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "baseline_marks" ADD CONSTRAINT "baseline_marks_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The current baselines are their pairs' first marks.
INSERT INTO "baseline_marks" ("id", "workspace_id", "target_id", "workload_id", "run_id", "created_at")
SELECT gen_random_uuid(), "workspace_id", "target_id", "workload_id", "run_id", "created_at" FROM "baselines";
