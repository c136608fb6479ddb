-- Issue 34: a study's primary metric (its verdicts' family; null: p95), and the verdict method's version a share
-- was made under, so a shared page says when its verdicts were decided by a later method.
ALTER TABLE "studies" ADD COLUMN "primary_metric" TEXT;
ALTER TABLE "share_links" ADD COLUMN "verdict_version" INTEGER;
