-- AlterTable
ALTER TABLE "runs" ADD COLUMN "abort_requested_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "share_links" ADD COLUMN "expires_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "workspace_limits" (
    "workspace_id" UUID NOT NULL,
    "max_duration_seconds" INTEGER NOT NULL,
    "max_vus" INTEGER NOT NULL,
    "max_arrival_rate" INTEGER NOT NULL,
    "max_study_runs" INTEGER NOT NULL,
    "max_concurrent_runs" INTEGER NOT NULL,
    "max_http_series" INTEGER NOT NULL,
    "run_creations_per_minute" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "workspace_limits_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" BIGSERIAL NOT NULL,
    "workspace_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "subject_kind" TEXT NOT NULL,
    "subject_id" TEXT NOT NULL,
    "detail" JSONB,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_events_workspace_id_at_idx" ON "audit_events"("workspace_id", "at");

-- AddForeignKey
ALTER TABLE "workspace_limits" ADD CONSTRAINT "workspace_limits_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
