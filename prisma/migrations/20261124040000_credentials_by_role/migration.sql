-- Credentials by role: an owner decides per credential whether editors may deploy with it (default: no).
ALTER TABLE "credentials" ADD COLUMN "editors_may_deploy" BOOLEAN NOT NULL DEFAULT false;

-- Who asked for a run or a study (the member's user id; null: made without a signed-in member, e.g. the CLI or
-- a local app without sign-in). The worker checks that member's role against the credential before deploying.
ALTER TABLE "runs" ADD COLUMN "requested_by" UUID;
ALTER TABLE "studies" ADD COLUMN "requested_by" UUID;
