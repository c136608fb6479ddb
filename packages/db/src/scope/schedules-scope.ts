// A workspace's schedules (docs/schedules.md): a run or a study started on a cron pattern, and the record of each
// tick. Writes here are the rows; the BullMQ job scheduler of each schedule follows them (packages/jobs schedules.ts).
// scheduleTicks() is the worker's side, across workspaces: a tick is looked up by the schedule's id its job carries.
import {
  nextTicks,
  readStoredJson,
  type ScheduleInput,
  type ScheduleTickOutcome,
  type StudyInput,
  studyInput,
  isFinalRunStatus,
} from "@opsbench/core";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { jsonInput } from "../json-column";
import { parseStudyJson } from "../studies/study-json";
import { isUuid } from "./workspace-access";
import { Prisma } from "../generated/prisma/client";
import type { Schedule, ScheduleTick } from "../generated/prisma/client";

/** How many of a schedule's latest ticks its view lists. */
export const RECENT_TICKS = 10;

export type ScheduleRow = Schedule;
export type ScheduleTickRow = ScheduleTick;

/** What a schedule starts, as stored: a run of target x workload, or a study of a copied definition. */
export type ScheduleTarget =
  | { kind: "run"; target: string; workload: string }
  | { kind: "study"; studyId: string | null; studyName: string; definition: StudyInput };

export interface ScheduleView {
  id: string;
  name: string;
  what: ScheduleTarget extends infer T ? (T extends { kind: "study" } ? Omit<T, "definition"> : T) : never;
  cron: string;
  timeZone: string;
  paused: boolean;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The next five ticks (none while paused). */
  nextTicks: Date[];
  recentTicks: { tickAt: Date; outcome: ScheduleTickOutcome; reason: string | null; runId: string | null; studyId: string | null }[];
}

/** A stored schedule's target; a row whose study definition no longer parses reads as null (its ticks fail, saying so). */
export function scheduleTargetOf(row: Schedule): ScheduleTarget | null {
  if (row.kind === "run" && row.targetName && row.workloadName) return { kind: "run", target: row.targetName, workload: row.workloadName };
  if (row.kind === "study") {
    const definition = readStoredJson(studyInput, row.studyDefinition);
    if (definition) return { kind: "study", studyId: row.sourceStudyId, studyName: definition.name, definition };
  }
  return null;
}

function toView(row: Schedule & { ticks: ScheduleTick[] }, now = new Date()): ScheduleView {
  const target = scheduleTargetOf(row);
  const what: ScheduleView["what"] =
    target?.kind === "study"
      ? { kind: "study", studyId: target.studyId, studyName: target.studyName }
      : (target ?? { kind: "run", target: row.targetName ?? "", workload: row.workloadName ?? "" });
  return {
    id: row.id,
    name: row.name,
    what,
    cron: row.cron,
    timeZone: row.timeZone,
    paused: row.paused,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    nextTicks: row.paused ? [] : nextTicks(row.cron, row.timeZone, 5, now),
    recentTicks: row.ticks.map((t) => ({ tickAt: t.tickAt, outcome: t.outcome, reason: t.reason, runId: t.runId, studyId: t.studyId })),
  };
}

/** A saved study's definition, for a schedule to start again: its targets and workloads by name, its settings. */
function studyDefinitionOf(study: StudyRowFields & { cells: { target: string; workload: string }[] }): StudyInput {
  const unique = (xs: string[]) => [...new Set(xs)];
  // With factors, the cells name the variants (saved targets of their own): they are started as they are.
  return {
    name: study.name,
    targets: unique(study.cells.map((c) => c.target)),
    workloads: unique(study.cells.map((c) => c.workload)),
    repetitions: study.repetitions,
    order: study.runOrder === "sequential" ? "sequential" : "interleaved-random",
    cooldownSeconds: study.cooldownSeconds,
    baselineWaitSeconds: study.baselineWaitSeconds,
    ...(study.warmupSeconds ? { warmupSeconds: study.warmupSeconds } : {}),
    ...(study.primaryMetric ? { primaryMetric: study.primaryMetric } : {}),
  };
}
type StudyRowFields = {
  name: string;
  repetitions: number;
  runOrder: string;
  cooldownSeconds: number;
  baselineWaitSeconds: number;
  warmupSeconds: number;
  primaryMetric: string | null;
};

const uniqueViolation = (err: unknown) => err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002";

export function schedulesScope(db: Db, workspaceId: string) {
  const find = async (id: string) => {
    const row = isUuid(id) ? await db.schedule.findFirst({ where: { id, workspaceId } }) : null;
    if (!row) throw new NotFoundError("schedule", id);
    return row;
  };
  const withTicks = { ticks: { orderBy: { tickAt: "desc" as const }, take: RECENT_TICKS } };

  /** The stored columns of what a schedule starts; a study's definition is read from the saved study now. */
  const whatColumns = async (what: ScheduleInput["what"]) => {
    if (what.kind === "run") {
      // Names that exist now (a tick whose target was deleted since is recorded as failed, naming it).
      for (const [entity, name] of [
        ["target", what.target],
        ["workload", what.workload],
      ] as const) {
        const found =
          entity === "target"
            ? await db.target.findFirst({ where: { workspaceId, name }, select: { id: true } })
            : await db.workload.findFirst({ where: { workspaceId, name }, select: { id: true } });
        if (!found) throw new NotFoundError(entity, name);
      }
      return { kind: "run", targetName: what.target, workloadName: what.workload, sourceStudyId: null, studyDefinition: Prisma.DbNull };
    }
    const study = isUuid(what.studyId) ? await db.study.findFirst({ where: { id: what.studyId, workspaceId } }) : null;
    if (!study) throw new NotFoundError("study", what.studyId);
    const definition = studyDefinitionOf(parseStudyJson(study));
    return {
      kind: "study",
      targetName: null,
      workloadName: null,
      sourceStudyId: study.id,
      studyDefinition: jsonInput(studyInput, definition),
    };
  };

  return {
    list: async (): Promise<ScheduleView[]> => {
      const now = new Date();
      const rows = await db.schedule.findMany({ where: { workspaceId }, orderBy: { name: "asc" }, include: withTicks });
      return rows.map((r) => toView(r, now));
    },
    view: async (id: string): Promise<ScheduleView> => {
      await find(id);
      return toView(await db.schedule.findUniqueOrThrow({ where: { id }, include: withTicks }));
    },
    get: find,
    /** Saves a new schedule; a name the workspace already uses is a conflict. */
    create: async (input: ScheduleInput, opts: { createdBy?: string | null } = {}): Promise<Schedule> => {
      try {
        return await db.schedule.create({
          data: {
            workspaceId,
            name: input.name,
            cron: input.cron,
            timeZone: input.timeZone,
            paused: input.paused,
            createdBy: opts.createdBy || null,
            ...(await whatColumns(input.what)),
          },
        });
      } catch (err) {
        if (uniqueViolation(err)) throw new ConflictError(`a schedule named "${input.name}" already exists`);
        throw err;
      }
    },
    /** Replaces a schedule's name, target and timing (its paused state stays: pause and resume change it). */
    update: async (id: string, input: Omit<ScheduleInput, "paused">): Promise<Schedule> => {
      await find(id);
      try {
        return await db.schedule.update({
          where: { id },
          data: { name: input.name, cron: input.cron, timeZone: input.timeZone, ...(await whatColumns(input.what)) },
        });
      } catch (err) {
        if (uniqueViolation(err)) throw new ConflictError(`a schedule named "${input.name}" already exists`);
        throw err;
      }
    },
    setPaused: async (id: string, paused: boolean): Promise<Schedule> => {
      await find(id);
      return db.schedule.update({ where: { id }, data: { paused } });
    },
    /** Deletes a schedule and its ticks' record (what they started stays). */
    delete: async (id: string): Promise<Schedule> => {
      const row = await find(id);
      await db.schedule.delete({ where: { id } });
      return row;
    },
  };
}
export type SchedulesScope = ReturnType<typeof schedulesScope>;

/** What a schedule's latest started run or study is doing now: its id and status, if it is not final. */
async function stillGoing(db: Db, tick: ScheduleTick | null): Promise<{ kind: "run" | "study"; id: string; status: string } | null> {
  if (tick?.runId) {
    const run = await db.run.findUnique({ where: { id: tick.runId }, select: { status: true } });
    return run && !isFinalRunStatus(run.status) ? { kind: "run", id: tick.runId, status: run.status } : null;
  }
  if (tick?.studyId) {
    const study = await db.study.findUnique({ where: { id: tick.studyId }, select: { status: true } });
    return study && (study.status === "QUEUED" || study.status === "RUNNING")
      ? { kind: "study", id: tick.studyId, status: study.status }
      : null;
  }
  return null;
}

/**
 * The worker's side of ticks, for any workspace. claim() is the once-per-tick guarantee: it inserts the tick's row
 * (UNIQUE schedule, tick time) before anything starts, so a second delivery of the same tick, to this worker or
 * another, finds the row and starts nothing. The row is written as FAILED ("did not finish starting") and set to
 * what happened once it is known, so a worker that dies in between leaves an honest record.
 */
export function scheduleTicks(db: Db) {
  return {
    /** The schedule a tick's job names (null: deleted since). */
    schedule: (id: string) => db.schedule.findUnique({ where: { id } }),
    /** Every schedule not paused, in every workspace: the job schedulers a worker rebuilds at start. */
    active: () => db.schedule.findMany({ where: { paused: false }, select: { id: true, cron: true, timeZone: true } }),
    /** Inserts the tick; null when it exists already (another delivery of it got there first). */
    claim: async (scheduleId: string, tickAt: Date): Promise<ScheduleTick | null> => {
      try {
        return await db.scheduleTick.create({
          data: { scheduleId, tickAt, outcome: "FAILED", reason: "the worker stopped before the tick started anything" },
        });
      } catch (err) {
        if (uniqueViolation(err)) return null;
        throw err;
      }
    },
    /** The run or study the schedule's latest tick before `tickAt` started, if still queued or under way. */
    previousStillGoing: async (scheduleId: string, tickAt: Date) =>
      stillGoing(
        db,
        await db.scheduleTick.findFirst({
          where: { scheduleId, tickAt: { lt: tickAt }, outcome: "RAN" },
          orderBy: { tickAt: "desc" },
        }),
      ),
    /**
     * What the tick came to: RAN (with what it started), SKIPPED or FAILED (with why). The one place a tick's
     * outcome is written: a notification of skipped ticks hooks in beside its caller (packages/jobs schedule-tick.ts).
     */
    record: (tickId: string, outcome: { outcome: ScheduleTickOutcome; reason?: string | null; runId?: string; studyId?: string }) =>
      db.scheduleTick.update({
        where: { id: tickId },
        data: { outcome: outcome.outcome, reason: outcome.reason ?? null, runId: outcome.runId ?? null, studyId: outcome.studyId ?? null },
      }),
    /** A schedule's ticks, newest first (tests and the view). */
    list: (scheduleId: string, take = 100) => db.scheduleTick.findMany({ where: { scheduleId }, orderBy: { tickAt: "desc" }, take }),
  };
}
export type ScheduleTicks = ReturnType<typeof scheduleTicks>;
