-- Issue 36: a run's provenance, the code it loaded (commit, branch, pull request), the CI build that ran it and the
-- team's labels; lists filter by commit prefix, branch and label within a workspace.
-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "branch" TEXT,
ADD COLUMN     "build_url" TEXT,
ADD COLUMN     "commit" TEXT,
ADD COLUMN     "labels" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "pull_request" INTEGER;

-- CreateIndex
CREATE INDEX "runs_workspace_id_commit_idx" ON "runs"("workspace_id", "commit");

-- CreateIndex
CREATE INDEX "runs_workspace_id_branch_idx" ON "runs"("workspace_id", "branch");
