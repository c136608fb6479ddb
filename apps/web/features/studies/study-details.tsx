import type { StudyCellView, StudyRunView, StudyView } from "@opsbench/db";
import {
  FINAL_RUN_STATUSES,
  intervalNote,
  isRunInProgress,
  isStudySettled,
  STUDY_CELL_FIGURES,
  type SampleStats,
  type StudyCellFigure,
  type StudyMetric,
} from "@opsbench/core";
import Link from "next/link";
import type { ReactNode } from "react";
import { fixed, fmtCount, fmtDuration, fmtMs, fmtRps, fmtTime, NO_VALUE } from "@/lib/format";
import { FlagBadges, FlagList } from "@/features/compare/compare-flags";
import { StatusBadge } from "@/components/status-badge";
import { StudyVerdicts } from "./study-verdicts";
import { ScrollX } from "@/components/scroll-x";

/** The figures a cell shows (core's, from the metric catalog), each written with its decimals. */
const METRICS = STUDY_CELL_FIGURES.map((f) => ({ ...f, fmt: (v: number | null | undefined) => fixed(v, f.decimals) }));

/** The study and all its runs are final: nothing on the page will change any more. */
export const isStudyFinal = (s: Pick<StudyView, "status" | "runs">) => isStudySettled(s);

/** A letter per cell (A, B, ..., Z, AA, ...), so the run order reads compactly. */
export const cellLetter = (i: number): string =>
  i < 26 ? String.fromCharCode(65 + i) : cellLetter(Math.floor(i / 26) - 1) + cellLetter(i % 26);

/** A test id part: names are lower-case letters, digits, '.', '_' and '-' already; anything else becomes '_'. */
const idPart = (s: string) => s.replace(/[^a-z0-9._-]/gi, "_");
export const cellTestId = (c: { target: { name: string }; workload: { name: string } }) =>
  `study-cell-${idPart(c.target.name)}-${idPart(c.workload.name)}`;

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-2xs uppercase tracking-wide text-zinc-500">{label}</dt>
      <dd className="truncate font-mono text-xs text-zinc-800">{children}</dd>
    </div>
  );
}

const STATUS_BAR: Record<string, string> = { SUCCEEDED: "bg-emerald-500", FAILED: "bg-red-500", ABORTED: "bg-amber-400" };

function Progress({ study }: { study: StudyView }) {
  const p = study.progress;
  const current = p.current ? study.runs.find((r) => r.id === p.current!.runId) : null;
  const cell = current ? study.cells[current.cell] : null;
  const running = study.runs.filter((r) => isRunInProgress(r.status)).length;
  return (
    <section className="rounded-md border border-zinc-200 bg-white p-3">
      <div className="flex h-2 overflow-hidden rounded bg-zinc-100" role="img" aria-label={`${p.finished} of ${p.total} runs finished`}>
        {FINAL_RUN_STATUSES.map((s) => {
          const n = s === "SUCCEEDED" ? p.succeeded : s === "FAILED" ? p.failed : p.aborted;
          return n > 0 ? <div key={s} className={STATUS_BAR[s]} style={{ width: `${(100 * n) / Math.max(1, p.total)}%` }} /> : null;
        })}
        {running > 0 && <div className="animate-pulse bg-blue-400" style={{ width: `${(100 * running) / Math.max(1, p.total)}%` }} />}
      </div>
      <p className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-700">
        <span data-testid="study-progress" data-finished={p.finished} data-total={p.total}>
          <b>{p.finished}</b> of {p.total} runs finished
        </span>
        <span className="text-emerald-700">{p.succeeded} succeeded</span>
        {p.failed > 0 && <span className="text-red-600">{p.failed} failed</span>}
        {p.aborted > 0 && <span className="text-amber-700">{p.aborted} aborted</span>}
        <span data-testid="study-eta" data-eta-seconds={p.etaSeconds ?? ""}>
          ETA: {p.etaSeconds === null ? NO_VALUE : p.etaSeconds === 0 ? "any moment" : fmtDuration(p.etaSeconds * 1000)}
        </span>
        <span className="text-zinc-500">(per-run overhead {p.overheadSeconds} s)</span>
        {current && cell && (
          <span data-testid="study-current">
            now:{" "}
            <Link href={`/runs/${current.id}`} className="font-mono text-blue-600 hover:underline">
              {cellLetter(current.cell)}·{current.repetition}
            </Link>{" "}
            <span className="font-mono">
              {cell.target.name} × {cell.workload.name}
            </span>{" "}
            <StatusBadge status={current.status} />
          </span>
        )}
      </p>
    </section>
  );
}

function RunChip({ run, letter }: { run: StudyRunView; letter: string }) {
  return (
    <li
      data-testid={`study-run-${run.id}`}
      data-status={run.status}
      data-round={run.round ?? ""}
      data-position={run.position ?? ""}
      data-repetition={run.repetition}
      className="min-w-0 rounded border border-zinc-200 px-2 py-1"
    >
      <div className="flex items-center gap-1.5">
        <Link href={`/runs/${run.id}`} className="font-mono text-2xs font-medium text-blue-600 hover:underline" title={run.id}>
          #{run.repetition}
        </Link>
        <StatusBadge status={run.status} />
      </div>
      <div className="mt-0.5 font-mono text-2xs text-zinc-500" title="round · position in the study's run order">
        {letter}·{run.repetition} · round {run.round ?? NO_VALUE} · #{run.position ?? NO_VALUE}
      </div>
      <div className="font-mono text-2xs leading-4 tabular-nums text-zinc-700">
        {run.result ? (
          <>
            <div>p95 {fmtMs(run.result.p95)} ms</div>
            <div>{fmtRps(run.result.rps)} req/s</div>
          </>
        ) : run.error ? (
          <span className="text-red-600" title={run.error}>
            error
          </span>
        ) : (
          NO_VALUE
        )}
      </div>
      <FlagBadges flags={run.flags} testId={`study-run-flags-${run.id}`} />
    </li>
  );
}

/** A figure's numbers for tests and scripts: the 95% CI (3 runs on) and the interval shown (low, high, kind: core's domain-interval.ts). */
function ciAttrs(s: SampleStats | undefined, prefix = "") {
  return {
    [`data-${prefix}n`]: s?.n ?? 0,
    [`data-${prefix}mean`]: s?.mean ?? "",
    [`data-${prefix}ci-low`]: s?.ci95?.low ?? "",
    [`data-${prefix}ci-high`]: s?.ci95?.high ?? "",
    [`data-${prefix}low`]: s?.interval?.low ?? "",
    [`data-${prefix}high`]: s?.interval?.high ?? "",
    [`data-${prefix}interval`]: s?.interval?.kind ?? "",
  };
}

/** A figure's interval as the cell shows it: [low, high] from 3 runs; the runs' range, said to be uninformative, from 2; nothing from 1. */
function IntervalText({ s, fmt }: { s: SampleStats | undefined; fmt: (v: number) => string }) {
  const i = s?.interval;
  if (!s || !i || i.kind === "value")
    return <span className="font-sans text-2xs text-zinc-400">{s?.n === 1 ? "1 run: no interval" : NO_VALUE}</span>;
  if (i.kind === "min-max")
    return (
      <span data-role="range" title={intervalNote(i, s.n)}>
        <span className="font-sans text-2xs text-zinc-500">min–max </span>
        <span data-role="range-low">{fmt(i.low)}</span>–<span data-role="range-high">{fmt(i.high)}</span>
        <span className="block font-sans text-2xs text-amber-700">n = {s.n}: not informative</span>
      </span>
    );
  return (
    <span data-role="ci" title={intervalNote(i, s.n)}>
      [<span data-role="ci-low">{fmt(i.low)}</span>, <span data-role="ci-high">{fmt(i.high)}</span>]
    </span>
  );
}

const mergedValue = (cell: StudyCellView, m: StudyCellFigure): number | null => (cell.merged ? m.ofRun(cell.merged) : null);

function CellCard({ cell, repetitions }: { cell: StudyCellView; repetitions: number }) {
  const letter = cellLetter(cell.index);
  const byRep = new Map(cell.runs.map((r) => [r.repetition, r]));
  const reps = Math.max(repetitions, ...cell.runs.map((r) => r.repetition));
  return (
    <section
      id={cellTestId(cell)}
      data-testid={cellTestId(cell)}
      data-target={cell.target.name}
      data-workload={cell.workload.name}
      {...ciAttrs(cell.stats.p95)}
      {...ciAttrs(cell.stats.rps, "rps-")}
      className="min-w-0 rounded-md border border-zinc-200 bg-white"
    >
      <header className="flex flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2">
        <span className="inline-flex h-5 min-w-5 items-center justify-center rounded bg-zinc-800 px-1 font-mono text-2xs font-semibold text-white">
          {letter}
        </span>
        <h3 className="min-w-0 truncate text-sm font-semibold">
          <span className="font-mono">{cell.target.name}</span>
          {cell.target.kind && (
            <span className="ml-1 rounded bg-zinc-100 px-1 font-mono text-2xs font-normal text-zinc-600">{cell.target.kind}</span>
          )}
          <span className="mx-1.5 text-zinc-400">×</span>
          <span className="font-mono">{cell.workload.name}</span>
        </h3>
        <span className="ml-auto">
          <FlagBadges flags={cell.flags} />
        </span>
      </header>
      <ol className="grid gap-1.5 px-3 py-2" style={{ gridTemplateColumns: `repeat(${Math.min(reps, 4)}, minmax(0, 1fr))` }}>
        {Array.from({ length: reps }, (_, i) => i + 1).map((rep) => {
          const run = byRep.get(rep);
          return run ? (
            <RunChip key={rep} run={run} letter={letter} />
          ) : (
            <li key={rep} className="rounded border border-dashed border-zinc-200 px-2 py-1 text-2xs text-zinc-400">
              #{rep} not planned
            </li>
          );
        })}
      </ol>
      <ScrollX className="border-t border-zinc-100">
        <table className="w-full text-xs">
          <thead className="bg-zinc-50">
            <tr>
              <th className="px-3 py-1 text-left text-2xs font-medium uppercase tracking-wide text-zinc-500">metric</th>
              <th className="px-2 py-1 text-right text-2xs font-medium uppercase tracking-wide text-zinc-500">n</th>
              <th className="px-2 py-1 text-right text-2xs font-medium uppercase tracking-wide text-zinc-500">mean ± SD</th>
              <th
                className="px-2 py-1 text-right text-2xs font-medium uppercase tracking-wide text-zinc-500"
                title="95% CI from 3 runs (log scale for positive figures, logit for shares); the runs' range from 2"
              >
                95% CI (3+ runs)
              </th>
              <th
                className="px-3 py-1 text-right text-2xs font-medium uppercase tracking-wide text-zinc-500"
                title="all succeeded repetitions' histograms merged"
              >
                merged
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100 font-mono tabular-nums">
            {METRICS.map((m) => {
              const s = cell.stats[m.key];
              return (
                <tr key={m.key} data-metric={m.key} {...ciAttrs(s)} data-sd={s?.sd ?? ""}>
                  <td className="px-3 py-1 font-sans text-zinc-600">
                    {m.label}
                    {m.unit && m.unit !== m.label ? <span className="text-zinc-400"> ({m.unit})</span> : null}
                  </td>
                  <td className="px-2 py-1 text-right text-zinc-500">{s?.n ?? 0}</td>
                  <td className="px-2 py-1 text-right">
                    <span data-role="mean">{m.fmt(s?.mean)}</span>
                    {s?.sd !== null && s?.sd !== undefined && (
                      <span className="text-zinc-500">
                        {" "}
                        ± <span data-role="sd">{m.fmt(s.sd)}</span>
                      </span>
                    )}
                  </td>
                  <td className="px-2 py-1 text-right">
                    <IntervalText s={s} fmt={(v) => m.fmt(v)} />
                  </td>
                  <td className="px-3 py-1 text-right text-zinc-700">{m.fmt(mergedValue(cell, m))}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollX>
      {cell.merged && (
        <p className="border-t border-zinc-100 px-3 py-1.5 text-2xs text-zinc-500">
          merged: {fmtCount(cell.merged.requests)} requests over {cell.merged.durationSeconds.toFixed(0)} s of load
          {cell.merged.maxThroughput && <> · best 10 s window {fmtRps(cell.merged.maxThroughput.rps)} req/s</>}
        </p>
      )}
    </section>
  );
}

/** Each cell's interval of one metric on one scale: a bar from low to high (grey and dashed: the range of 2 runs), a dot at the mean. */
function CiPlot({
  study,
  metric,
  label,
  fmt,
  unit,
}: {
  study: StudyView;
  metric: StudyMetric;
  label: string;
  fmt: (v: number) => string;
  unit: string;
}) {
  const rows = study.cells.map((c) => ({ c, s: c.stats[metric] }));
  const values = rows.flatMap(({ s }) => (s.interval ? [s.interval.low, s.interval.high] : s.mean !== null ? [s.mean] : []));
  if (values.length === 0) return null;
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.05 || 1;
  lo -= pad;
  hi += pad;
  const x = (v: number) => `${((v - lo) / (hi - lo)) * 100}%`;
  return (
    <div data-testid={`study-ci-plot-${metric}`} className="min-w-0">
      <h3 className="mb-1 text-xs font-medium text-zinc-700">
        {label} <span className="font-normal text-zinc-400">(mean and 95% CI; range of the runs below 3, {unit})</span>
      </h3>
      <ul className="space-y-1">
        {rows.map(({ c, s }) => (
          <li key={c.index} className="grid grid-cols-[minmax(0,10rem)_1fr_7.5rem] items-center gap-2 text-2xs">
            <span className="truncate font-mono text-zinc-700" title={`${c.target.name} × ${c.workload.name}`}>
              <b>{cellLetter(c.index)}</b> {c.target.name} × {c.workload.name}
            </span>
            <span className="relative h-4 rounded bg-zinc-50">
              {s.interval && s.interval.kind !== "value" && (
                <span
                  data-interval={s.interval.kind}
                  className={`absolute top-1.5 h-1 rounded ${s.interval.kind === "min-max" ? "border-t border-dashed border-zinc-400" : "bg-blue-300"}`}
                  style={{ left: x(s.interval.low), width: `calc(${x(s.interval.high)} - ${x(s.interval.low)})` }}
                />
              )}
              {s.mean !== null && (
                <span className="absolute top-0.5 h-3 w-1 -translate-x-1/2 rounded-sm bg-blue-700" style={{ left: x(s.mean) }} />
              )}
            </span>
            <span className="text-right font-mono tabular-nums text-zinc-600">
              {s.mean === null || !s.interval
                ? NO_VALUE
                : s.interval.kind === "value"
                  ? `${fmt(s.mean)} (n=1)`
                  : `${fmt(s.interval.low)}–${fmt(s.interval.high)}${s.interval.kind === "min-max" ? ` (range, n=${s.n})` : ""}`}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function RunOrder({ study }: { study: StudyView }) {
  const rounds = new Map<string, StudyRunView[]>();
  for (const r of study.runs) {
    const key = r.round === null ? "—" : String(r.round);
    rounds.set(key, [...(rounds.get(key) ?? []), r]);
  }
  const color: Record<string, string> = {
    SUCCEEDED: "border-emerald-300 bg-emerald-50 text-emerald-800",
    FAILED: "border-red-300 bg-red-50 text-red-800",
    ABORTED: "border-amber-300 bg-amber-50 text-amber-800",
    QUEUED: "border-zinc-200 bg-white text-zinc-600",
  };
  return (
    <section className="rounded-md border border-zinc-200 bg-white">
      <h2 className="border-b border-zinc-200 px-3 py-2 text-xs font-medium text-zinc-600">
        Run order{" "}
        <span className="font-normal text-zinc-400">
          ({study.order}
          {study.seed !== null ? `, seed ${study.seed}` : ""}; letter = cell, number = repetition)
        </span>
      </h2>
      <ol data-testid="study-run-order" className="space-y-1 px-3 py-2">
        {[...rounds.entries()].map(([round, runs]) => (
          <li
            key={round}
            data-round={round}
            data-order={runs.map((r) => cellLetter(r.cell)).join("")}
            className="flex flex-wrap items-center gap-1 text-2xs"
          >
            <span className="w-16 shrink-0 text-zinc-500">round {round}</span>
            {runs.map((r, i) => (
              <span key={r.id} className="inline-flex items-center gap-1">
                {i > 0 && <span className="text-zinc-500">→</span>}
                <Link
                  href={`/runs/${r.id}`}
                  data-run-id={r.id}
                  title={`${study.cells[r.cell]?.target.name} × ${study.cells[r.cell]?.workload.name}, repetition ${r.repetition}: ${r.status}`}
                  className={`rounded border px-1 font-mono ${color[r.status] ?? "border-blue-300 bg-blue-50 text-blue-800"}`}
                >
                  {cellLetter(r.cell)}·{r.repetition}
                </Link>
              </span>
            ))}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The whole study page body, from a StudyView. */
export function StudyDetails({ study, liveLabel, actions }: { study: StudyView; liveLabel?: ReactNode; actions?: ReactNode }) {
  const anyResult = study.cells.some((c) => c.runs.some((r) => r.result));
  return (
    <div className="space-y-4">
      <header className="rounded-md border border-zinc-200 bg-white p-3">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-base font-semibold" data-testid="study-name">
            {study.name}
          </h1>
          <StatusBadge status={study.status} testId="study-status" />
          {liveLabel}
          <span className="ml-auto flex items-center gap-2">
            {anyResult && (
              <>
                <Link
                  href={`/studies/${study.id}/tables`}
                  data-testid="study-tables-link"
                  className="text-xs text-blue-600 hover:underline"
                >
                  Tables (as the studies printed them)
                </Link>
                <Link href={`/compare?study=${study.id}`} className="text-xs text-blue-600 hover:underline">
                  Compare cells
                </Link>
              </>
            )}
            {actions}
          </span>
        </div>
        <dl className="mt-3 flex flex-wrap gap-x-8 gap-y-2">
          <Field label="Study">
            <span title={study.id}>{study.id.slice(0, 8)}</span>
          </Field>
          <Field label="Cells">
            {study.cells.length} (
            {study.cells.length
              ? `${new Set(study.cells.map((c) => c.target.name)).size} targets × ${new Set(study.cells.map((c) => c.workload.name)).size} workloads`
              : NO_VALUE}
            )
          </Field>
          <Field label="Repetitions">{study.repetitions}</Field>
          <Field label="Order">
            <span data-testid="study-order">{study.order}</span>
          </Field>
          <Field label="Seed">
            <span data-testid="study-seed">{study.seed ?? NO_VALUE}</span>
          </Field>
          <Field label="Cool-down">{study.cooldownSeconds} s</Field>
          <Field label="Baseline wait">{study.baselineWaitSeconds} s</Field>
          <Field label="Warm-up excluded">
            <span data-testid="study-warmup">{study.warmupSeconds} s</span>
          </Field>
          <Field label="Created (UTC)">{fmtTime(study.createdAt)}</Field>
          <Field label="Started (UTC)">{fmtTime(study.startedAt)}</Field>
          <Field label="Finished (UTC)">{fmtTime(study.finishedAt)}</Field>
        </dl>
        {study.error && (
          <pre
            data-testid="study-error"
            className="mt-3 whitespace-pre-wrap break-words rounded border border-red-300 bg-red-50 p-2 font-mono text-xs text-red-800"
          >
            {study.error}
          </pre>
        )}
      </header>

      {/* The verdicts first once the study is final: the primary metric's card answers the study. */}
      {anyResult && study.cells.length > 1 && isStudyFinal(study) && (
        <StudyVerdicts
          // A study that settles again (a rerun) is compared again.
          key={study.finishedAt === null ? "" : String(study.finishedAt)}
          studyId={study.id}
        />
      )}

      <Progress study={study} />

      <div data-testid="study-grid" className="grid grid-cols-1 gap-3 xl:grid-cols-2">
        {study.cells.map((c) => (
          <CellCard key={c.index} cell={c} repetitions={study.repetitions} />
        ))}
      </div>

      {anyResult && (
        <section className="grid grid-cols-1 gap-4 rounded-md border border-zinc-200 bg-white p-3 lg:grid-cols-2">
          <CiPlot study={study} metric="p95" label="p95 latency" fmt={(v) => fmtMs(v)} unit="ms" />
          <CiPlot study={study} metric="rps" label="Throughput" fmt={(v) => fmtRps(v)} unit="req/s" />
        </section>
      )}

      <RunOrder study={study} />

      {study.cells.some((c) => c.flags.length > 0) && (
        <div className="space-y-1">
          {study.cells
            .filter((c) => c.flags.length > 0)
            .map((c) => (
              <div key={c.index} className="text-xs">
                <span className="font-mono text-zinc-600">
                  {cellLetter(c.index)} {c.target.name} × {c.workload.name}
                </span>
                <FlagList flags={c.flags} />
              </div>
            ))}
        </div>
      )}
    </div>
  );
}
