-- Issue 37: a run's script environment (`opsbench run --env`, `--secret`) and the workspace's script secrets
-- (sealed with OPSBENCH_SECRET_KEY, never answered back).
ALTER TABLE "runs" ADD COLUMN "script_env" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN "script_secrets" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "script_secrets" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "sealed" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "script_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "script_secrets_workspace_id_name_key" ON "script_secrets"("workspace_id", "name");

-- AddForeignKey
ALTER TABLE "script_secrets" ADD CONSTRAINT "script_secrets_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
