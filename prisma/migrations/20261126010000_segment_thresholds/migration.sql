-- Issue 24: the thresholds each k6 of an external run declared (the opsbench output's "plan" line), judged on the merged result.
ALTER TABLE "run_segments" ADD COLUMN "thresholds" JSONB;
