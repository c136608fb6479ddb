import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { abortExternalRun, createExternalRun } from "../k6-ingest/external-runs";
import { parseRunJson } from "../runs/run-json";
import {
  compileK6Script,
  externalRunSettings,
  pageOf,
  readStoredJson,
  type RunProvenance,
  runSummarySchema,
  studyMaxThroughput,
  workloadSpec,
  type Saturation,
} from "@opsbench/core";
import { loadMeasuredCells } from "../runs/measured-cells";
import { loadRunSaturation } from "../runs/run-saturation";
import { provenanceColumns, type ProvenanceFilter, provenanceWhere, recordedProvenance } from "../runs/run-provenance";
import { afterNewest, limitOf, NEWEST_FIRST, newestKey, type PageArgs } from "./page-where";
import { loadRunView, loadWindowSummary, type RunViewOptions } from "../runs/run-view";
import { loadRunSurroundings } from "../runs/run-surroundings";
import { runSpecColumns } from "../spec-columns";
import { isUuid, type WorkspaceAccess } from "./workspace-access";

/** A run that cannot be a baseline (not succeeded, or no saved target and workload): the caller's mistake. */
export class BaselineRefused extends Error {}

/** A workspace's runs. */
export function runsScope(db: Db, workspaceId: string, access: WorkspaceAccess) {
  return {
    /**
     * `requestedBy`: the member's user id (the worker checks their role against the target's credential before deploy).
     * `provenance`: the code and build the run is of (core's runProvenanceSchema, checked again on write).
     */
    create: async (args: {
      targetName: string;
      workloadName: string;
      requestedBy?: string | null;
      provenance?: RunProvenance;
      /** `--env KEY=VALUE` (core scriptEnvSchema, checked by the caller) and the workspace secrets the script is given. */
      scriptEnv?: Record<string, string>;
      scriptSecrets?: string[];
    }) => {
      const target = await db.target.findUnique({ where: { workspaceId_name: { workspaceId, name: args.targetName } } });
      if (!target) throw new NotFoundError("target", args.targetName);
      const workload = await db.workload.findUnique({ where: { workspaceId_name: { workspaceId, name: args.workloadName } } });
      if (!workload) throw new NotFoundError("workload", args.workloadName);
      return parseRunJson(
        await db.run.create({
          data: {
            workspaceId,
            targetId: target.id,
            workloadId: workload.id,
            requestedBy: args.requestedBy || null,
            ...runSpecColumns(target, workload),
            ...provenanceColumns(args.provenance),
            scriptEnv: args.scriptEnv ?? {},
            scriptSecrets: args.scriptSecrets ?? [],
          },
        }),
      );
    },
    /**
     * A run fed by k6 started elsewhere (external-runs.ts), of a saved workload when one is named (its spec is kept
     * on the run), and what its k6 processes need (core's externalRunSettings, the workload's script). The ingest
     * token is returned once, never stored.
     */
    createExternal: async (args: {
      name?: string;
      workloadName?: string;
      generators: number;
      validHours?: number;
      /** The server's address as k6 reaches it. */
      baseUrl: string;
      image: string;
      scriptConfigmap: string;
      provenance?: RunProvenance;
    }) => {
      const workload = args.workloadName
        ? await db.workload.findUnique({ where: { workspaceId_name: { workspaceId, name: args.workloadName } } })
        : null;
      if (args.workloadName && !workload) throw new NotFoundError("workload", args.workloadName);
      const run = await createExternalRun(db, workspaceId, {
        name: args.name ?? (workload ? `${workload.name} (external)` : "external"),
        workloadId: workload?.id ?? null,
        ...(workload ? { workloadSpec: workload.spec } : {}),
        validHours: args.validHours,
        generators: args.generators,
        provenance: args.provenance,
      });
      const script = workload ? { file: `opsbench-${workload.name}.js`, source: compileK6Script(workloadSpec.parse(workload.spec)) } : null;
      const settings = externalRunSettings({ ...args, runId: run.id, token: run.token, script: script?.file ?? "script.js" });
      return { id: run.id, token: run.token, expiresAt: run.expiresAt.toISOString(), ...settings, script };
    },
    /**
     * The newest runs; with `workloadId`, only that workload's (its page's recent runs); with `commit` (a prefix of
     * at least 7 hex digits), `branch` or `label` ("key=value"), only the runs whose provenance matches (run-provenance.ts).
     */
    list: async (take = 50, filter: { workloadId?: string } & ProvenanceFilter = {}) =>
      (
        await db.run.findMany({
          where: { ...provenanceWhere(filter), workspaceId, ...(filter.workloadId ? { workloadId: filter.workloadId } : {}) },
          orderBy: NEWEST_FIRST,
          take,
          include: { target: { select: { name: true, kind: true } }, workload: { select: { name: true } } },
        })
      ).map((r) => ({ ...parseRunJson(r), provenance: recordedProvenance(r) })),
    /**
     * Sets a run's provenance, replacing what it had (a field left out is cleared), whatever its status: CI may
     * learn its build's address only after the run started. Answers it as recorded.
     */
    /**
     * A page of the runs, newest first (createdAt, then id), after `cursor`; the same filters as list. `nextCursor`
     * is null on the last page.
     */
    page: async (args: PageArgs & { workloadId?: string } & ProvenanceFilter = {}) => {
      const limit = limitOf(args);
      const rows = await db.run.findMany({
        where: {
          AND: [
            { ...provenanceWhere(args), workspaceId, ...(args.workloadId ? { workloadId: args.workloadId } : {}) },
            afterNewest(args.cursor),
          ],
        },
        orderBy: NEWEST_FIRST,
        take: limit + 1,
        include: { target: { select: { name: true, kind: true } }, workload: { select: { name: true } } },
      });
      return pageOf(
        rows.map((r) => ({ ...parseRunJson(r), provenance: recordedProvenance(r) })),
        limit,
        newestKey,
      );
    },
    setProvenance: async (id: string, provenance: RunProvenance) => {
      await access.assertRun(id);
      const { count } = await db.run.updateMany({ where: { id, workspaceId }, data: provenanceColumns(provenance) });
      if (count === 0) throw new NotFoundError("run", id);
      return recordedProvenance(
        await db.run.findUniqueOrThrow({
          where: { id },
          select: { commit: true, branch: true, pullRequest: true, buildUrl: true, labels: true, series: true },
        }),
      );
    },
    assertExists: access.assertRun,
    /**
     * What a "% of a measured maximum" rate is resolved from: the run's status, its maximum throughput (req/s,
     * null before it is measured; with `request`, that request name's own maximum) and the requests (of that name)
     * and iterations it recorded, and whether the run saturated (a maximum from a run that did not is only the load it was
     * offered: core's resolveRate refuses it). A run of another workspace is a NotFoundError, exactly like one that does not exist.
     */
    measuredMax: async (
      id: string,
      request?: string,
    ): Promise<{ status: string; maxThroughputRps: number | null; requests: number; iterations: number; saturation: Saturation }> => {
      const run = isUuid(id) ? await db.run.findFirst({ where: { id, workspaceId }, select: { status: true, summary: true } }) : null;
      if (!run) throw new NotFoundError("run", id);
      const summary = readStoredJson(runSummarySchema, run.summary);
      const iterations = summary?.load?.iterations ?? 0;
      const saturation = await loadRunSaturation(db, id);
      if (request === undefined) {
        const rps = summary?.maxThroughput?.rps;
        return {
          status: run.status,
          maxThroughputRps: rps && rps > 0 ? rps : null,
          requests: summary?.requests ?? 0,
          iterations,
          saturation,
        };
      }
      const { cells } = await loadMeasuredCells(db, id);
      const named = cells.filter((c) => c.name === request);
      const rps = studyMaxThroughput(named, { requestName: request })?.rps;
      return {
        status: run.status,
        maxThroughputRps: rps && rps > 0 ? rps : null,
        requests: named.reduce((n, c) => n + c.count, 0),
        iterations,
        saturation,
      };
    },
    view: async (id: string, opts: RunViewOptions = {}) => {
      await access.assertRun(id);
      return loadRunView(db, id, opts);
    },
    /** Its study, the loopback hosts its script names and the runs of its target x workload to set it against (run-surroundings.ts). */
    surroundings: async (id: string) => {
      await access.assertRun(id);
      return loadRunSurroundings(db, workspaceId, id);
    },
    /** The files the run's script wrote with handleSummary(): names and sizes. */
    artifacts: async (id: string) => {
      await access.assertRun(id);
      return db.runArtifact.findMany({
        where: { runId: id },
        select: { name: true, size: true, createdAt: true },
        orderBy: { name: "asc" },
      });
    },
    /** One of them with its content; a NotFoundError when the run has none of that name. */
    artifact: async (id: string, name: string) => {
      await access.assertRun(id);
      const found = await db.runArtifact.findUnique({ where: { runId_name: { runId: id, name } } });
      if (!found) throw new NotFoundError("artifact", name);
      return found;
    },
    /**
     * Marks a run as the workspace's baseline for its target and workload (replacing the one before). Only a
     * succeeded run of a saved target and workload can be one: a BaselineRefused says why another cannot.
     */
    setBaseline: async (id: string, setBy: string | null) => {
      await access.assertRun(id);
      const run = await db.run.findUniqueOrThrow({
        where: { id },
        select: {
          status: true,
          targetId: true,
          workloadId: true,
          target: { select: { name: true } },
          workload: { select: { name: true } },
        },
      });
      if (run.status !== "SUCCEEDED") throw new BaselineRefused(`run ${id} is ${run.status}: only a succeeded run can be a baseline`);
      if (!run.targetId || !run.workloadId || !run.target || !run.workload)
        throw new BaselineRefused(`run ${id} has no saved target and workload (an imported or external run): it cannot be a baseline`);
      const where = { workspaceId_targetId_workloadId: { workspaceId, targetId: run.targetId, workloadId: run.workloadId } };
      const pair = { workspaceId, targetId: run.targetId, workloadId: run.workloadId };
      const [row] = await db.$transaction([
        db.baseline.upsert({ where, create: { ...pair, runId: id, setBy }, update: { runId: id, setBy, createdAt: new Date() } }),
        // The history --baseline-runs reads: every marking, the current one last.
        db.baselineMark.create({ data: { ...pair, runId: id } }),
      ]);
      return { runId: id, target: run.target.name, workload: run.workload.name, createdAt: row.createdAt };
    },
    /** The workspace's baselines, one per target and workload, optionally of one target and/or workload (by name). */
    baselines: async (filter: { target?: string | undefined; workload?: string | undefined } = {}) =>
      (
        await db.baseline.findMany({
          where: {
            workspaceId,
            ...(filter.target ? { target: { name: filter.target } } : {}),
            ...(filter.workload ? { workload: { name: filter.workload } } : {}),
          },
          orderBy: { createdAt: "desc" },
          include: { target: { select: { name: true } }, workload: { select: { name: true } } },
        })
      ).map((b) => ({ runId: b.runId, target: b.target.name, workload: b.workload.name, createdAt: b.createdAt })),
    /**
     * The last `count` succeeded runs of a baseline run's series ending at it, the run first then the ones before it,
     * newest first (`--baseline-runs`). A run ever marked as its target and workload's baseline: the runs marked as
     * the pair's baseline before its latest marking (the baseline history). Another run of a saved pair: the pair's
     * runs created before it. An imported run (no target or workload): the imports of the same name before it.
     * `exclude` leaves a run out (the candidate, when it belongs to the series).
     */
    baselineRuns: async (id: string, count: number, exclude?: string) => {
      await access.assertRun(id);
      const run = await db.run.findUniqueOrThrow({
        where: { id },
        select: {
          status: true,
          createdAt: true,
          source: true,
          name: true,
          targetId: true,
          workloadId: true,
          target: { select: { name: true } },
          workload: { select: { name: true } },
        },
      });
      if (run.status !== "SUCCEEDED") throw new BaselineRefused(`run ${id} is ${run.status}: only a succeeded run can be a baseline`);
      const left = [id, ...(exclude ? [exclude] : [])];
      const pairName = `target ${run.target?.name ?? run.targetId} x workload ${run.workload?.name ?? run.workloadId}`;
      if (run.targetId && run.workloadId) {
        const pair = { workspaceId, targetId: run.targetId, workloadId: run.workloadId };
        const marked = await db.baselineMark.findFirst({ where: { ...pair, runId: id }, orderBy: { createdAt: "desc" } });
        if (marked) {
          const marks = await db.baselineMark.findMany({
            where: { ...pair, createdAt: { lte: marked.createdAt }, runId: { notIn: left }, run: { status: "SUCCEEDED" } },
            orderBy: [{ createdAt: "desc" }, { id: "desc" }],
            select: { runId: true },
          });
          const earlier = [...new Set(marks.map((m) => m.runId))].slice(0, count - 1);
          return { runIds: [id, ...earlier], series: `the runs marked as ${pairName}'s baseline` };
        }
      }
      const series =
        run.targetId && run.workloadId
          ? { targetId: run.targetId, workloadId: run.workloadId }
          : { targetId: null, workloadId: null, source: run.source, name: run.name };
      const before = await db.run.findMany({
        where: { workspaceId, status: "SUCCEEDED", ...series, createdAt: { lte: run.createdAt }, id: { notIn: left } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: count - 1,
        select: { id: true },
      });
      const named = series.targetId
        ? `the runs of ${pairName}`
        : `the ${run.source} runs named ${run.name === null ? "(none)" : `"${run.name}"`}`;
      return { runIds: [id, ...before.map((r) => r.id)], series: named };
    },
    /** Summary of seconds [from, to) after the load started. */
    windowSummary: async (id: string, fromSeconds: number, toSeconds: number) => {
      await access.assertRun(id);
      return loadWindowSummary(db, id, fromSeconds, toSeconds);
    },
    /**
     * Aborts a single run: one still QUEUED becomes ABORTED at once; one under way is marked, and the worker
     * running it stops its k6 within a second and tears it down (it ends ABORTED). An external run, which no worker
     * runs, is ABORTED at once and its ingest token refused from then on. A final run is left as it is.
     */
    abort: async (id: string): Promise<{ aborted: boolean; status: string }> => {
      await access.assertRun(id);
      const now = new Date();
      if (await abortExternalRun(db, workspaceId, id, now)) return { aborted: true, status: "ABORTED" };
      const queued = await db.run.updateMany({
        where: { id, workspaceId, status: "QUEUED" },
        data: { status: "ABORTED", finishedAt: now, error: "aborted by request", abortRequestedAt: now },
      });
      const inFlight =
        queued.count === 1
          ? queued
          : await db.run.updateMany({
              where: { id, workspaceId, status: { in: ["PROVISIONING", "RUNNING", "ANALYZING"] }, abortRequestedAt: null },
              data: { abortRequestedAt: now },
            });
      const { status } = await db.run.findUniqueOrThrow({ where: { id }, select: { status: true } });
      return { aborted: inFlight.count === 1, status };
    },
    /** Marks a run that never reached a worker as failed (e.g. the queue was down). */
    failBeforeStart: (id: string, error: string) =>
      db.run.updateMany({ where: { id, workspaceId, status: "QUEUED" }, data: { status: "FAILED", error, finishedAt: new Date() } }),
  };
}
