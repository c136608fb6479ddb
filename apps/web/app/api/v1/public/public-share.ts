// What a share link shows anyone who has it: the link's subject (a run, a study's
// cells, or a comparison) loaded in the link's workspace, rebuilt field by field
// from a whitelist. Nothing else leaves: no target spec (env values can be
// secrets), no step errors or events, no run that is not the subject's.
import type { RunSummary } from "@opsbench/core";
import { NotFoundError, resolveShareLink, workspaceScope, type ShareKind } from "@opsbench/db";
import type { CompareData, GroupCost } from "@/app/compare/compare-data";
import { loadCompareData } from "@/app/compare/load-compare-data";
import { subjectRunIds, type StoredSubject } from "@/app/share/share-subject";
import { ApiError } from "@/lib/api/errors";
import { getDb } from "@/lib/server/singletons";

export interface PublicShare {
  kind: ShareKind;
  title: string | null;
  comparison: CompareData;
}

const num = (v: unknown): number => (typeof v === "number" ? v : Number.NaN);
const numOrNull = (v: unknown): number | null => (typeof v === "number" ? v : null);

function publicSummary(s: RunSummary | null): RunSummary | null {
  if (!s) return null;
  const l = s.latencyMs;
  return {
    requests: num(s.requests),
    failures: num(s.failures),
    goodput: num(s.goodput),
    successRatio: num(s.successRatio),
    rps: num(s.rps),
    durationSeconds: num(s.durationSeconds),
    latencyMs: { avg: num(l.avg), min: num(l.min), p50: num(l.p50), p90: num(l.p90), p95: num(l.p95), p99: num(l.p99), max: num(l.max) },
    byClass: Object.fromEntries(
      Object.entries(s.byClass ?? {})
        .filter(([k]) => /^[0-9a-z]{1,16}$/.test(k))
        .map(([k, v]) => [k, num(v)]),
    ),
    ...(s.maxThroughput
      ? {
          maxThroughput: {
            rps: num(s.maxThroughput.rps),
            windowSeconds: num(s.maxThroughput.windowSeconds),
            windowStartOffset: num(s.maxThroughput.windowStartOffset),
          },
        }
      : {}),
    ...(s.load
      ? {
          load: {
            maxVUs: num(s.load.maxVUs),
            iterations: num(s.load.iterations),
            droppedIterations: num(s.load.droppedIterations),
            bytesSent: num(s.load.bytesSent),
            bytesReceived: num(s.load.bytesReceived),
            generatorCpuPercent: numOrNull(s.load.generatorCpuPercent),
          },
        }
      : {}),
  } as RunSummary;
}

const publicFlags = (flags: unknown) =>
  (Array.isArray(flags) ? flags : [])
    .filter((f): f is { code: string; message: string } => typeof f?.code === "string" && typeof f?.message === "string")
    .map((f) => ({ code: f.code, message: f.message }));

/** The comparison rebuilt from the whitelist; throws if it would name a run outside `allowed`. */
export function publicComparison(data: CompareData, allowed: ReadonlySet<string>): CompareData {
  const out: CompareData = {
    title: data.title,
    generatedAt: data.generatedAt,
    costs: data.costs.map((c): GroupCost | null =>
      c ? { unit: c.unit, total: c.total, perThousandRequests: c.perThousandRequests, source: c.source } : null,
    ),
    // Labels and numbers only.
    breakEvens: data.breakEvens.map((b) => ({
      serverful: b.serverful,
      serverless: b.serverless,
      capacityPerNodeRps: b.capacityPerNodeRps,
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
        flags: publicFlags(r.flags),
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
      basis: v.basis,
      samples: [v.samples[0], v.samples[1]],
      text: v.text,
      difference: v.difference,
      low: v.low,
      high: v.high,
      level: v.level,
      resamples: v.resamples,
      seed: v.seed,
      significant: v.significant,
    })),
  };
  const named = out.groups.flatMap((g) => [...g.runs.map((r) => r.id), ...g.infra.map((p) => p.runId)]);
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
  const subject = link.subject as StoredSubject;
  try {
    if (link.kind === "study" && subject.studyId) {
      const study = await scope.studies.get(subject.studyId);
      const data = await loadCompareData(scope, { studyId: subject.studyId });
      return { kind: link.kind, title: link.title ?? data.title, comparison: publicComparison(data, new Set(study.runs.map((r) => r.id))) };
    }
    const groups = link.kind === "run" ? [{ runIds: subject.runIds ?? [] }] : (subject.groups ?? []);
    if (groups.length === 0 || groups.some((g) => g.runIds.length === 0)) return null;
    const data = await loadCompareData(scope, { groups });
    return { kind: link.kind, title: link.title, comparison: publicComparison(data, new Set(subjectRunIds(subject))) };
  } catch (err) {
    // The subject was deleted since the link was made: the link shows nothing.
    if (err instanceof NotFoundError || err instanceof ApiError) return null;
    throw err;
  }
}
