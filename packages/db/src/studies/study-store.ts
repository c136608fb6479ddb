// Writes to studies: creation (the study, its targets/workloads when defined
// inline, and every run row in one transaction: nothing half-made), and the
// worker's conditional status changes. The Study row is the truth; the queue only delivers.
import { randomInt } from "node:crypto";
import {
  type FactorLevel,
  MAX_SEED,
  planRunOrder,
  plannedOrderSchema,
  studyCellsSchema,
  targetVariants,
  type StudyCell,
  type StudyInput,
} from "@opsbench/core";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import type { Target, Workload } from "../generated/prisma/client";
import type { StudyStatus } from "../generated/prisma/enums";
import { jsonInput } from "../json-column";
import { runSpecColumns } from "../spec-columns";
import { parseRunJson } from "../runs/run-json";
import { definitionsScope } from "../scope/definitions-scope";
import { parseStudyJson, parseStudyWithRuns } from "./study-json";

/**
 * Creates a study and all its runs in one transaction. Targets and workloads
 * are names of existing ones (NotFoundError otherwise: nothing is written) or
 * full definitions, created or replacing the one of that name.
 */
export function createStudy(db: Db, workspaceId: string, input: StudyInput, opts: { requestedBy?: string | null } = {}) {
  // Who asked (a member's user id): the study and each of its runs carry it; the worker checks it before deploy.
  const requestedBy = opts.requestedBy || null;
  return db.$transaction(
    async (tx) => {
      // One at a time, in the input's order: all in this transaction.
      const definitions = definitionsScope(tx, workspaceId);
      const targets: Target[] = [];
      // With factors, each target's variants (one per level, made or replaced like inline definitions) take its place.
      const variantOf = new Map<string, { baseTarget: string; level: FactorLevel }>();
      for (const [i, ref] of input.targets.entries()) {
        const target = typeof ref === "string" ? await definitions.targets.byName(ref) : await definitions.targets.put(ref);
        if (!input.factors) {
          targets.push(target);
          continue;
        }
        for (const v of targetVariants(target, input.factors, ["targets", i])) {
          const row = await definitions.targets.put(v.input);
          variantOf.set(row.id, { baseTarget: v.base, level: v.level });
          targets.push(row);
        }
      }
      const workloads: Workload[] = [];
      for (const ref of input.workloads) {
        workloads.push(typeof ref === "string" ? await definitions.workloads.byName(ref) : await definitions.workloads.put(ref));
      }
      // Targets outer, workloads inner: the order the input lists them in.
      const cells: StudyCell[] = targets.flatMap((t) =>
        workloads.map((w) => ({ targetId: t.id, target: t.name, workloadId: w.id, workload: w.name, ...variantOf.get(t.id) })),
      );
      const seed = input.seed ?? (input.order === "interleaved-random" ? randomInt(0, MAX_SEED + 1) : null);
      const plan = planRunOrder({ cells: cells.length, repetitions: input.repetitions, order: input.order, seed });
      const study = await tx.study.create({
        data: {
          workspaceId,
          requestedBy,
          name: input.name,
          repetitions: input.repetitions,
          runOrder: input.order,
          seed,
          cooldownSeconds: input.cooldownSeconds,
          baselineWaitSeconds: input.baselineWaitSeconds,
          warmupSeconds: input.warmupSeconds ?? 0,
          primaryMetric: input.primaryMetric ?? null,
          cells: jsonInput(studyCellsSchema, cells),
          plannedOrder: jsonInput(
            plannedOrderSchema,
            plan.map((p) => p.cell),
          ),
        },
      });
      const byId = <T extends { id: string }>(list: T[], id: string) => list.find((x) => x.id === id)!;
      await tx.run.createMany({
        data: plan.map((p) => {
          const cell = cells[p.cell]!;
          const target = byId(targets, cell.targetId);
          const workload = byId(workloads, cell.workloadId);
          return {
            workspaceId,
            requestedBy,
            studyId: study.id,
            targetId: target.id,
            workloadId: workload.id,
            repetition: p.repetition,
            round: p.round,
            position: p.position,
            ...runSpecColumns(target, workload),
          };
        }),
      });
      const runs = await tx.run.findMany({ where: { studyId: study.id }, orderBy: { position: "asc" } });
      return { study: parseStudyJson(study), runs: runs.map(parseRunJson), cells };
    },
    // Prisma's default of 5 s is short for hundreds of run rows on a busy machine.
    { maxWait: 10_000, timeout: 60_000 },
  );
}

/**
 * A study of one target x one workload x `repetitions` runs in sequence (the demo):
 * a study like any other, made by createStudy from the two rows' names.
 */
export async function createSingleCellStudy(
  db: Db,
  workspaceId: string,
  args: { name: string; targetId: string; workloadId: string; repetitions?: number },
) {
  const [target, workload] = await Promise.all([
    db.target.findFirst({ where: { id: args.targetId, workspaceId }, select: { name: true } }),
    db.workload.findFirst({ where: { id: args.workloadId, workspaceId }, select: { name: true } }),
  ]);
  if (!target) throw new NotFoundError("target", args.targetId);
  if (!workload) throw new NotFoundError("workload", args.workloadId);
  return createStudy(db, workspaceId, {
    name: args.name,
    targets: [target.name],
    workloads: [workload.name],
    repetitions: args.repetitions ?? 1,
    order: "sequential",
    cooldownSeconds: DEFAULT_COOLDOWN_SECONDS,
    baselineWaitSeconds: DEFAULT_BASELINE_WAIT_SECONDS,
    warmupSeconds: 0,
  });
}

const ACTIVE: StudyStatus[] = ["QUEUED", "RUNNING"];
/** The columns' defaults (prisma/schema.prisma), for studies not made from a study input. */
const DEFAULT_COOLDOWN_SECONDS = 60;
const DEFAULT_BASELINE_WAIT_SECONDS = 120;

/** Aborts a study that has not finished: the study and its runs not yet started become ABORTED. The worker aborts the run under way. */
export async function abortStudy(db: Db, workspaceId: string, studyId: string): Promise<{ aborted: boolean; status: StudyStatus }> {
  return db.$transaction(async (tx) => {
    const r = await tx.study.updateMany({
      where: { id: studyId, workspaceId, status: { in: ACTIVE } },
      data: { status: "ABORTED", finishedAt: new Date(), error: "aborted by request" },
    });
    if (r.count === 1) {
      await tx.run.updateMany({
        where: { studyId, status: "QUEUED" },
        data: { status: "ABORTED", finishedAt: new Date(), error: "the study was aborted" },
      });
    }
    const s = await tx.study.findFirst({ where: { id: studyId, workspaceId }, select: { status: true } });
    if (!s) throw new NotFoundError("study", studyId);
    return { aborted: r.count === 1, status: s.status };
  });
}

/** The worker's view of one study. */
export function studyStore(db: Db, studyId: string) {
  return {
    get: async () =>
      parseStudyWithRuns(
        await db.study.findUniqueOrThrow({
          where: { id: studyId },
          include: { runs: { orderBy: [{ position: "asc" }, { repetition: "asc" }] } },
        }),
      ),

    status: async () => (await db.study.findUniqueOrThrow({ where: { id: studyId }, select: { status: true } })).status,

    /** QUEUED -> RUNNING; false when the study is already running (a redelivery) or final. */
    claim: async () =>
      (await db.study.updateMany({ where: { id: studyId, status: "QUEUED" }, data: { status: "RUNNING", startedAt: new Date() } }))
        .count === 1,

    /** Sets the final status unless the study is final already (an abort by request wins). */
    finish: async (status: "SUCCEEDED" | "FAILED" | "ABORTED", error: string | null = null) =>
      (await db.study.updateMany({ where: { id: studyId, status: { in: ACTIVE } }, data: { status, error, finishedAt: new Date() } }))
        .count === 1,

    /** Runs not yet started will not be: they become ABORTED (or FAILED when the study could not be started at all). */
    closeRemaining: (status: "ABORTED" | "FAILED", error: string) =>
      db.run.updateMany({ where: { studyId, status: "QUEUED" }, data: { status, error, finishedAt: new Date() } }),
  };
}
export type StudyStore = ReturnType<typeof studyStore>;
