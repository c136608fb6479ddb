// What a share link shows anyone who has it: the link's subject (a run, a study's
// cells, or a comparison) loaded in the link's workspace, rebuilt field by field
// from a whitelist (summaries and flags through core's schemas). Nothing else leaves:
// no target spec (env values can be secrets), no step errors or events, no run that
// is not the subject's.
import {
  publicRunSummarySchema,
  subjectRunIds,
  validityFlags,
  type PublicRunSummary,
  type RunSummary,
  type ShareKind,
} from "@opsbench/core";
import { NotFoundError, resolveShareLink, workspaceScope } from "@opsbench/db";
import { z } from "zod";
import type { CompareData, GroupCost } from "@/features/compare/compare-data";
import { loadCompareData } from "@/features/compare/load-compare-data";
import { getDb } from "@/lib/server/singletons";

export interface PublicShare {
  kind: ShareKind;
  title: string | null;
  comparison: CompareData;
  /** The verdict method's version when the link was made (null: before versions were kept); the comparison's own is today's. */
  sharedUnderVerdictVersion: number | null;
}

/** A summary as the public sees it: core's public schema (measured figures; no cost model, thresholds or app checks). */
const publicSummary = (s: RunSummary | null): PublicRunSummary | null => (s ? publicRunSummarySchema.parse(s) : null);

/** The comparison rebuilt from the whitelist; throws if it would name a run outside `allowed`. */
export function publicComparison(data: CompareData, allowed: ReadonlySet<string>): CompareData {
  const out: CompareData = {
    title: data.title,
    generatedAt: data.generatedAt,
    costs: data.costs.map((c): GroupCost | null =>
      c
        ? {
            unit: c.unit,
            total: c.total,
            perThousandRequests: c.perThousandRequests,
            perThousandSuccessfulRequests: c.perThousandSuccessfulRequests,
            source: c.source,
            assumptions: [...c.assumptions],
          }
        : null,
    ),
    // Labels and numbers only.
    breakEvens: data.breakEvens.map((b) => ({
      serverful: b.serverful,
      serverless: b.serverless,
      capacityPerNodeRps: b.capacityPerNodeRps,
      // Measured words and numbers (core's runs/saturation.ts writes them), no run ids.
      capacity: { known: b.capacity.known, why: b.capacity.why, replicas: b.capacity.replicas, servedRps: b.capacity.servedRps },
      result: {
        unit: b.result.unit,
        periodSeconds: b.result.periodSeconds,
        breakEvenRps: b.result.breakEvenRps,
        serverfulCapacityRps: b.result.serverfulCapacityRps,
        points: b.result.points.map((p) => ({ rps: p.rps, nodes: p.nodes, serverful: p.serverful, serverless: p.serverless })),
        crossings: b.result.crossings.map((c) => ({ rps: c.rps, direction: c.direction })),
      },
    })),
    groups: data.groups.map((g) => ({
      label: g.label,
      target: g.target ? { name: g.target.name, kind: g.target.kind } : null,
      workload: g.workload ? { name: g.workload.name } : null,
      runs: g.runs.map((r) => ({
        id: r.id,
        repetition: r.repetition,
        status: r.status,
        summary: publicSummary(r.summary),
        flags: validityFlags.parse(r.flags),
      })),
      merged: publicSummary(g.merged),
      series: g.series.map((b) => ({
        offsetSeconds: b.offsetSeconds,
        requests: b.requests,
        p50Ms: b.p50Ms,
        p95Ms: b.p95Ms,
        p99Ms: b.p99Ms,
        goodput: b.goodput,
      })),
      distribution: g.distribution.map((d) => ({ ms: d.ms, cumulative: d.cumulative })),
      infra: g.infra.map((p) => ({ runId: p.runId, offsetSeconds: p.offsetSeconds, replicas: p.replicas, cpuPercent: p.cpuPercent })),
      byRequest: g.byRequest.map((b) => ({ name: b.name, requests: b.requests, p50: b.p50, p95: b.p95, p99: b.p99 })),
    })),
    verdicts: data.verdicts.map((v) => ({
      metric: v.metric,
      baseline: v.baseline,
      candidate: v.candidate,
      method: v.method,
      methodLabel: v.methodLabel,
      basis: v.basis,
      scope: v.scope,
      runToRunCv: v.runToRunCv,
      samples: [v.samples[0], v.samples[1]] as [number, number],
      scale: v.scale,
      role: v.role,
      estimate: v.estimate,
      low: v.low,
      high: v.high,
      level: v.level,
      margin: v.margin,
      marginUnit: v.marginUnit,
      baselineMean: v.baselineMean,
      standardError: v.standardError,
      df: v.df,
      pValue: v.pValue,
      adjustedPValue: v.adjustedPValue,
      family: v.family,
      familySize: v.familySize,
      detectable: v.detectable,
      effect: v.effect,
      power: v.power,
      runsNeeded: v.runsNeeded,
      outcome: v.outcome,
      // Never true within a run (single runs without a stated run-to-run CV) or where Holm's correction took it back.
      significant: v.significant,
      seed: v.seed,
      resamples: v.resamples,
      blockLengths: v.blockLengths ? ([v.blockLengths[0], v.blockLengths[1]] as [number, number]) : null,
      reason: v.reason,
      text: v.text,
    })),
    verdictVersion: data.verdictVersion,
    verdictExclusions: {
      includeFlagged: data.verdictExclusions.includeFlagged,
      excluded: data.verdictExclusions.excluded.map((e) => ({
        group: e.group,
        runId: e.runId,
        flags: [...e.flags],
        ...(e.dropShare === undefined ? {} : { dropShare: e.dropShare }),
      })),
    },
  };
  const named = out.groups.flatMap((g) => [
    ...g.runs.map((r) => r.id),
    ...g.infra.map((p) => p.runId),
    ...out.verdictExclusions.excluded.map((e) => e.runId),
  ]);
  const stray = named.find((id) => !allowed.has(id));
  if (stray) throw new Error("a share link's view named a run outside its subject");
  return out;
}

/** The public view of a share link; null for an unknown, malformed or revoked token, or a subject that is gone. */
export async function loadPublicShare(token: string): Promise<PublicShare | null> {
  const db = getDb();
  const link = await resolveShareLink(db, token);
  if (!link) return null;
  const scope = workspaceScope(db, link.workspaceId);
  const subject = link.subject;
  try {
    if (link.kind === "study" && subject.studyId) {
      const study = await scope.studies.get(subject.studyId);
      const data = await loadCompareData(scope, { studyId: subject.studyId });
      return {
        kind: link.kind,
        title: link.title ?? data.title,
        comparison: publicComparison(data, new Set(study.runs.map((r) => r.id))),
        sharedUnderVerdictVersion: link.verdictVersion,
      };
    }
    const groups = link.kind === "run" ? [{ runIds: subject.runIds ?? [] }] : (subject.groups ?? []);
    if (groups.length === 0 || groups.some((g) => g.runIds.length === 0)) return null;
    const data = await loadCompareData(scope, { groups });
    return {
      kind: link.kind,
      title: link.title,
      comparison: publicComparison(data, new Set(subjectRunIds(subject))),
      sharedUnderVerdictVersion: link.verdictVersion,
    };
  } catch (err) {
    // The subject was deleted since the link was made: the link shows nothing.
    if (err instanceof NotFoundError || err instanceof z.ZodError) return null;
    throw err;
  }
}
