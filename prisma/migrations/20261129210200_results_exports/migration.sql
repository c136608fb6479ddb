-- Issue 38: results export. A workspace's exporters (Prometheus remote write, OTLP over HTTP; the credential sealed)
-- and the log of each run's series sent to each (docs/exports.md).
-- CreateTable
CREATE TABLE "results_exporters" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "auth" TEXT NOT NULL DEFAULT 'none',
    "username" TEXT,
    "secret" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "results_exporters_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "results_exports" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "exporter_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "attempt_log" JSONB NOT NULL DEFAULT '[]',
    "last_response_code" INTEGER,
    "last_error" TEXT,
    "series" INTEGER,
    "samples" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "results_exports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "results_exporters_workspace_id_idx" ON "results_exporters"("workspace_id");

-- CreateIndex
CREATE UNIQUE INDEX "results_exports_exporter_id_run_id_key" ON "results_exports"("exporter_id", "run_id");

-- CreateIndex
CREATE INDEX "results_exports_workspace_id_created_at_idx" ON "results_exports"("workspace_id", "created_at");

-- AddForeignKey
ALTER TABLE "results_exporters" ADD CONSTRAINT "results_exporters_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "results_exports" ADD CONSTRAINT "results_exports_exporter_id_fkey" FOREIGN KEY ("exporter_id") REFERENCES "results_exporters"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "results_exports" ADD CONSTRAINT "results_exports_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
