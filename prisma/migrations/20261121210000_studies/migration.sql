-- Studies: cool-down, baseline wait, cells and planned run order; runs: round, position and validity flags.
ALTER TABLE "studies" ADD COLUMN "cooldown_seconds" INTEGER NOT NULL DEFAULT 60,
ADD COLUMN "baseline_wait_seconds" INTEGER NOT NULL DEFAULT 120,
ADD COLUMN "cells" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN "planned_order" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN "started_at" TIMESTAMPTZ(3),
ADD COLUMN "error" TEXT;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN "round" INTEGER,
ADD COLUMN "position" INTEGER,
ADD COLUMN "flags" JSONB NOT NULL DEFAULT '[]';
