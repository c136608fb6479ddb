-- A study's warm-up: seconds from each run's load start left out of its summary, verdicts and tables.
ALTER TABLE "studies" ADD COLUMN "warmup_seconds" INTEGER NOT NULL DEFAULT 0;
