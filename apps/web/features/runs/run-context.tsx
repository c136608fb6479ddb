// Where a run stands: breadcrumbs to its study cell, target and workload; a warning beside its status when it
// measured nothing (no successful request); and its difference from the baseline of its target x workload (or the
// run before it), with a link to compare the two.
import { metricOf, NO_SUCCESSFUL_REQUEST, type RunSummary, type ValidityFlag } from "@opsbench/core";
import type { RunBrief, RunSurroundings, RunView } from "@opsbench/db";
import Link from "next/link";
import { selectionToQuery } from "@/features/compare/selection";
import { cellTestId } from "@/features/studies/study-details";
import { fmtTime } from "@/lib/format";

export function RunBreadcrumbs({
  run,
  study,
}: {
  run: Pick<RunView, "target" | "workload" | "repetition">;
  study: RunSurroundings["study"];
}) {
  const link = "text-blue-600 hover:underline";
  const sep = (
    <span aria-hidden className="text-zinc-400">
      /
    </span>
  );
  return (
    <nav aria-label="Breadcrumbs" data-testid="run-breadcrumbs" className="mb-2 flex flex-wrap items-center gap-1.5 text-xs text-zinc-600">
      {study ? (
        <>
          <Link href="/studies" className={link}>
            Studies
          </Link>
          {sep}
          <Link href={`/studies/${study.id}`} data-testid="run-crumb-study" className={link}>
            {study.name}
          </Link>
          {run.target && run.workload && (
            <>
              {sep}
              <Link
                href={`/studies/${study.id}#${cellTestId({ target: run.target, workload: run.workload })}`}
                data-testid="run-crumb-cell"
                className={link}
              >
                {run.target.name} × {run.workload.name}
              </Link>
            </>
          )}
          {sep}
          <span data-testid="run-crumb-repetition">repetition {run.repetition}</span>
        </>
      ) : (
        <span>{run.target ? "Single run" : "Imported run"}</span>
      )}
      {run.target && (
        <span className="ml-3">
          target{" "}
          <Link href={`/targets/${encodeURIComponent(run.target.name)}`} data-testid="run-crumb-target" className={`font-mono ${link}`}>
            {run.target.name}
          </Link>
        </span>
      )}
      {run.workload && (
        <span className="ml-3">
          workload{" "}
          <Link
            href={`/workloads/${encodeURIComponent(run.workload.name)}`}
            data-testid="run-crumb-workload"
            className={`font-mono ${link}`}
          >
            {run.workload.name}
          </Link>
        </span>
      )}
    </nav>
  );
}

export const hasNoSuccessfulRequest = (flags: readonly ValidityFlag[]) => flags.some((f) => f.code === NO_SUCCESSFUL_REQUEST);

/** Beside a run's status (its page, the runs list): a SUCCEEDED run that measured nothing is not shown as a plain success. */
export function NoSuccessBadge({ flags, testId = "run-warning" }: { flags: readonly ValidityFlag[]; testId?: string }) {
  const flag = flags.find((f) => f.code === NO_SUCCESSFUL_REQUEST);
  if (!flag) return null;
  return (
    <span
      data-testid={testId}
      data-flag={flag.code}
      title={flag.message}
      className="inline-flex items-center gap-1 whitespace-nowrap rounded bg-amber-100 px-1.5 py-0.5 font-mono text-2xs font-medium text-amber-900 ring-1 ring-inset ring-amber-400"
    >
      <span aria-hidden>⚠</span>no successful request
    </span>
  );
}

/** What the baseline strip sets the run against: the marked baseline (when another run), else the run before it. */
export function stripReference(s: Pick<RunSurroundings, "baseline" | "previous">): { kind: "baseline" | "previous"; run: RunBrief } | null {
  if (s.baseline) return { kind: "baseline", run: s.baseline };
  if (s.previous) return { kind: "previous", run: s.previous };
  return null;
}

const STRIP_METRICS = ["p95", "req/s", "failure share"] as const;

function Delta({ metricKey, now, then }: { metricKey: (typeof STRIP_METRICS)[number]; now: RunSummary; then: RunSummary }) {
  const m = metricOf(metricKey)!;
  const [a, b] = [m.ofRun(now), m.ofRun(then)];
  const d = a - b;
  const share = m.unit === "%";
  const better = d === 0 ? null : m.lowerIsBetter ? d < 0 : d > 0;
  const sign = d > 0 ? "+" : d < 0 ? "−" : "±";
  const relative = !share && b !== 0 ? ` (${sign}${Math.abs((100 * d) / b).toFixed(1)}%)` : "";
  return (
    <span data-testid={`baseline-delta-${metricKey.replace(/[^a-z0-9]+/g, "-")}`} data-delta={d} className="whitespace-nowrap">
      <span className="text-zinc-500">{m.label}</span>{" "}
      <span className={`font-mono tabular-nums ${better === null ? "text-zinc-800" : better ? "text-emerald-700" : "text-red-700"}`}>
        {sign}
        {Math.abs(d).toFixed(m.decimals)} {share ? "points" : m.unit}
        {relative}
      </span>{" "}
      <span className="font-mono text-zinc-500">
        ({a.toFixed(m.decimals)} vs {b.toFixed(m.decimals)})
      </span>
    </span>
  );
}

/** The run's difference from its reference run on p95, successful req/s and failure share: one run each, so no verdict. */
export function BaselineStrip({ runId, summary, surroundings }: { runId: string; summary: RunSummary; surroundings: RunSurroundings }) {
  const ref = stripReference(surroundings);
  if (!ref) return null;
  const label = ref.kind === "baseline" ? "baseline" : "previous run";
  const compare = `/compare?${selectionToQuery({
    groups: [
      { label, runIds: [ref.run.id] },
      { label: "this run", runIds: [runId] },
    ],
  })}`;
  return (
    <section
      data-testid="baseline-strip"
      data-reference={ref.kind}
      data-reference-run={ref.run.id}
      className="mt-3 flex flex-wrap items-baseline gap-x-6 gap-y-1 rounded border border-zinc-200 bg-zinc-50 px-3 py-2 text-xs"
    >
      <span className="text-zinc-700">
        Against{" "}
        <Link href={`/runs/${ref.run.id}`} className="font-mono text-blue-600 hover:underline">
          {ref.kind === "baseline" ? "the baseline" : "the previous successful run"} {ref.run.id.slice(0, 8)}
        </Link>{" "}
        <span className="text-zinc-500">
          ({ref.kind === "baseline" ? "marked for this target × workload" : "of this target × workload, no baseline marked"},{" "}
          {fmtTime(ref.run.createdAt)} UTC)
        </span>
      </span>
      {STRIP_METRICS.map((k) => (
        <Delta key={k} metricKey={k} now={summary} then={ref.run.summary} />
      ))}
      <Link href={compare} data-testid="baseline-compare" className="ml-auto text-blue-600 hover:underline">
        compare them (one run each: no verdict until there are more)
      </Link>
    </section>
  );
}
