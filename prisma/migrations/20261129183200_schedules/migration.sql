-- Issue 36: schedules, a run or a study started on a cron pattern in a time zone, and their ticks. The unique
-- (schedule_id, tick_at) is the once-per-tick guarantee: a tick's row is inserted before anything starts.
-- CreateEnum
CREATE TYPE "ScheduleTickOutcome" AS ENUM ('RAN', 'SKIPPED', 'FAILED');

-- CreateTable
CREATE TABLE "schedules" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "target_name" TEXT,
    "workload_name" TEXT,
    "source_study_id" UUID,
    "study_definition" JSONB,
    "cron" TEXT NOT NULL,
    "time_zone" TEXT NOT NULL,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "created_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "schedules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "schedule_ticks" (
    "id" UUID NOT NULL,
    "schedule_id" UUID NOT NULL,
    "tick_at" TIMESTAMPTZ(3) NOT NULL,
    "outcome" "ScheduleTickOutcome" NOT NULL,
    "reason" TEXT,
    "run_id" UUID,
    "study_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schedule_ticks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "schedules_workspace_id_name_key" ON "schedules"("workspace_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "schedule_ticks_schedule_id_tick_at_key" ON "schedule_ticks"("schedule_id", "tick_at");

-- AddForeignKey
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schedule_ticks" ADD CONSTRAINT "schedule_ticks_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;
