import {
  describeLoadAdmission,
  DROPPED_ITERATIONS_TOLERANCE_TEXT,
  droppedIterationsShare,
  dropsOverTolerance,
  flagsOfRun,
  fmtDropShare,
  isFinalRunStatus,
  meanCpuPercent,
  meanVcpus,
  NO_SUCCESSFUL_REQUEST,
  type RunSummary,
  scalingDuration,
  seriesKeyOfRun,
  STEP_NAMES,
  successFirstLatency,
  throughputPerVcpu,
  weightedQps,
} from "@opsbench/core";
import { RunMeasurement } from "./run-measurement";
import type { RunView } from "@opsbench/db";
import type { ReactNode } from "react";
import { fmtCount, fmtDuration, fmtMs, fmtPercent, fmtRps, fmtTime, NO_VALUE } from "@/lib/format";
import { RunCharts, runChartRange } from "./run-charts";
import { RunChecks } from "./run-checks";
import { RunProvenance, RunScriptEnv, SeriesLink } from "./run-provenance";
import { RunInfraCharts } from "./run-infra-charts";
import { FlagList } from "@/features/compare/compare-flags";
import { ShareButton } from "@/features/share/share-button";
import { StatusBadge } from "@/components/status-badge";
import { RoleGate } from "@/components/auth/role-gate";
import { buttonSecondary } from "@/components/panel";
import { selectionToQuery } from "@/features/compare/selection";
import type { RunSurroundings } from "@opsbench/db";
import Link from "next/link";
import { RepeatRunButton, RunMenu } from "./run-actions";
import { BaselineStrip, hasNoSuccessfulRequest, NoSuccessBadge, RunBreadcrumbs } from "./run-context";
import { RunFailure } from "./run-failure";

/** Beside the thresholds: whether the app's own checks after the load passed (the details are in their panel). */
function AppChecksField({ checks }: { checks: NonNullable<RunSummary["appChecks"]> }) {
  const failed = checks.filter((c) => !c.ok);
  return (
    <Field label="App checks">
      <a
        href="#app-checks"
        data-testid="run-app-checks-state"
        className={failed.length ? "text-red-600 hover:underline" : "hover:underline"}
      >
        {failed.length ? `failed: ${failed.map((c) => c.name).join(", ")}` : "passed"}
      </a>
    </Field>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-2xs uppercase tracking-wide text-zinc-500">{label}</dt>
      <dd className="truncate font-mono text-xs text-zinc-800">{children}</dd>
    </div>
  );
}

function Stat({ label, value, unit, testId, tone }: { label: string; value: string; unit?: string; testId: string; tone?: "bad" }) {
  return (
    <div className="rounded-md border border-zinc-200 bg-white px-3 py-2">
      <div className="text-2xs uppercase tracking-wide text-zinc-500">{label}</div>
      <div className="mt-0.5 flex items-baseline gap-1">
        <span
          data-testid={testId}
          className={`font-mono text-xl font-semibold tabular-nums ${tone === "bad" ? "text-red-600" : "text-zinc-900"}`}
        >
          {value}
        </span>
        {unit && value !== NO_VALUE && <span className="text-xs text-zinc-500">{unit}</span>}
      </div>
    </div>
  );
}

const fmtBytes = (b: number) =>
  b >= 1 << 30 ? `${(b / (1 << 30)).toFixed(2)} GiB` : b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : `${(b / 1024).toFixed(1)} KiB`;

/** Study 002's weighted qps: req/s over the target's mean CPU% in the load window (null without a CPU series). */
function runWeightedQps(s: NonNullable<RunView["summary"]>, infra: RunView["infra"]): { value: number; cpu: number } | null {
  const cpu = meanCpuPercent(
    infra.points.map((p) => ({ ts: new Date(p.offsetSeconds * 1000), cpuPercent: p.cpuPercent })),
    new Date(0),
    new Date(s.durationSeconds * 1000),
  );
  const value = weightedQps(s.rps, cpu);
  return value === null || cpu === null ? null : { value, cpu };
}

/** Study 002's scaling duration and study 004's throughput per vCPU, over the load window (null without replicas). */
function runScaling(s: NonNullable<RunView["summary"]>, infra: RunView["infra"], vcpuPerReplica: number | null) {
  const points = infra.points.map((p) => ({ ts: new Date(p.offsetSeconds * 1000), replicas: p.replicas }));
  const [start, end] = [new Date(0), new Date(s.durationSeconds * 1000)];
  const scaling = scalingDuration(points, start, end);
  const vcpus = meanVcpus(points, start, end, vcpuPerReplica);
  return { scaling, vcpus, perVcpu: throughputPerVcpu(s.rps, vcpus) };
}

/** Derived figures the studies used, and what the load generator did. */
function MoreFigures({
  s,
  infra,
  vcpuPerReplica,
}: {
  s: NonNullable<RunView["summary"]>;
  infra: RunView["infra"];
  vcpuPerReplica: number | null;
}) {
  const wq = runWeightedQps(s, infra);
  const sc = runScaling(s, infra, vcpuPerReplica);
  return (
    <dl className="flex flex-wrap gap-x-8 gap-y-2 rounded-md border border-zinc-200 bg-white px-3 py-2">
      <Field label="Success ratio (2xx share, study 001)">
        <span data-testid="summary-success-ratio">{fmtPercent(s.successRatio)}</span> %
      </Field>
      {s.expectedResponseRatio !== undefined && (
        <Field label="k6 expected_response ratio">
          <span data-testid="summary-expected-response-ratio">{fmtPercent(s.expectedResponseRatio)}</span> %
        </Field>
      )}
      {s.maxThroughput && (
        <Field label={`Max throughput (best ${s.maxThroughput.windowSeconds} s average of 2xx responses, study 004)`}>
          <span data-testid="summary-max-throughput">{fmtRps(s.maxThroughput.rps)}</span> req/s at {s.maxThroughput.windowStartOffset} s
        </Field>
      )}
      {wq && (
        <Field label="Weighted qps (req/s / CPU%, study 002)">
          <span data-testid="summary-weighted-qps">{wq.value.toFixed(3)}</span> at {wq.cpu.toFixed(1)} % CPU
        </Field>
      )}
      {sc.scaling && (
        <Field label="Scaling duration (to the most replicas of the load, study 002)">
          <span data-testid="summary-scaling-duration">{sc.scaling.seconds.toFixed(1)}</span> s, {sc.scaling.fromReplicas} to{" "}
          {sc.scaling.maxReplicas} replicas
        </Field>
      )}
      {sc.perVcpu !== null && sc.vcpus !== null && (
        <Field label="Throughput per vCPU (study 004)">
          <span data-testid="summary-throughput-per-vcpu">{sc.perVcpu.toFixed(2)}</span> req/s over {sc.vcpus.toFixed(2)} vCPU on average
        </Field>
      )}
      {s.load && (
        <>
          <Field label="Max VUs">{s.load.maxVUs}</Field>
          <Field label="Iterations">
            <span data-testid="summary-iterations">{fmtCount(s.load.iterations)}</span>
          </Field>
          <Field label={`Dropped iterations (judged up to ${DROPPED_ITERATIONS_TOLERANCE_TEXT} of planned)`}>
            <span
              data-testid="summary-dropped-iterations"
              className={
                dropsOverTolerance(droppedIterationsShare(s.load))
                  ? "text-red-600"
                  : s.load.droppedIterations > 0
                    ? "text-amber-700"
                    : undefined
              }
            >
              {fmtCount(s.load.droppedIterations)}
            </span>
            {s.load.droppedIterations > 0 && <> ({fmtDropShare(droppedIterationsShare(s.load))} of planned)</>}
          </Field>
          <Field label="Data sent / received">
            {fmtBytes(s.load.bytesSent)} / {fmtBytes(s.load.bytesReceived)}
          </Field>
          {typeof s.load.generatorCpuPercent === "number" && (
            <Field label="Load generator CPU">
              <span data-testid="summary-generator-cpu" className={s.load.generatorCpuPercent > 80 ? "text-red-600" : undefined}>
                {s.load.generatorCpuPercent.toFixed(0)}
              </span>{" "}
              % of the machine
            </Field>
          )}
          {s.load.generators?.map((g) => (
            <Field key={g.segment} label={`Generator ${g.segment + 1}/${g.count}${g.worker ? ` (${g.worker})` : ""}`}>
              <span data-testid="summary-generator" className={g.status === "LOST" ? "text-red-600" : undefined}>
                {g.status.toLowerCase()}
                {g.lostAt ? ` at ${g.lostAt}` : ""}, {fmtCount(g.requests)} requests (
                {s.requests ? ((100 * g.requests) / s.requests).toFixed(1) : "0"} %), CPU{" "}
                {g.cpuPercent === null ? "n/a" : `${g.cpuPercent.toFixed(0)} %`}
              </span>
            </Field>
          ))}
        </>
      )}
      {s.thresholds?.map((t) => (
        <Field key={`${t.metric}:${t.expression}`} label={`Threshold ${t.metric}`}>
          <span className={t.ok ? "text-emerald-700" : "text-red-600"}>
            {t.expression} {t.ok ? "held" : "crossed"}
          </span>
        </Field>
      ))}
    </dl>
  );
}

function Steps({ steps }: { steps: RunView["steps"] }) {
  const order = (name: string) => (STEP_NAMES as readonly string[]).indexOf(name);
  const sorted = [...steps].sort((a, b) => order(a.name) - order(b.name));
  return (
    <section className="rounded-md border border-zinc-200 bg-white">
      <h2 className="border-b border-zinc-200 px-3 py-2 text-xs font-medium text-zinc-600">Steps</h2>
      {sorted.length === 0 ? (
        <p className="px-3 py-2 text-xs text-zinc-400">No step has started yet.</p>
      ) : (
        <ol className="divide-y divide-zinc-100">
          {sorted.map((s) => (
            <li key={s.name} data-testid={`step-${s.name}`} className="flex items-center gap-3 px-3 py-1.5 text-xs">
              <span className="w-24 font-mono font-medium text-zinc-800">{s.name}</span>
              <StatusBadge status={s.status} />
              <span className="ml-auto font-mono tabular-nums text-zinc-600">
                {s.durationMs === null ? (s.status === "RUNNING" ? "running…" : NO_VALUE) : fmtDuration(s.durationMs)}
              </span>
              {s.error && (
                <span className="basis-full truncate text-red-600" title={s.error}>
                  {s.error}
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function Events({ events }: { events: RunView["events"] }) {
  if (events.length === 0) return null;
  const color: Record<string, string> = { error: "text-red-600", warn: "text-amber-700", info: "text-zinc-500" };
  return (
    <section className="rounded-md border border-zinc-200 bg-white">
      <h2 className="border-b border-zinc-200 px-3 py-2 text-xs font-medium text-zinc-600">Events</h2>
      <ol className="max-h-64 overflow-auto px-3 py-1.5 font-mono text-2xs leading-5">
        {events.map((e, i) => (
          <li key={i} className="flex gap-3">
            <span className="shrink-0 text-zinc-400">{fmtTime(e.ts)}</span>
            <span className={`w-10 shrink-0 ${color[e.level] ?? "text-zinc-500"}`}>{e.level}</span>
            <span className="min-w-0 break-words text-zinc-800">{e.message}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Why a finished run has no figures or charts: it failed before its load, or its load recorded no request. */
function notMeasuredReason(run: RunView): string {
  const failedAt = run.steps.find((st) => st.status === "FAILED")?.name;
  if (run.status === "FAILED")
    return `No request was measured: the run failed${failedAt ? ` at ${failedAt}` : ""} before its load produced results, so there are no figures or charts.`;
  if (run.status === "ABORTED")
    return "No request was measured: the run was aborted before its load produced results, so there are no figures or charts.";
  return "No request was recorded during the load, so there are no figures or charts.";
}

/** The whole run page body, rendered from a RunView and what surrounds the run (its study, its reference run). */
export function RunDetails({
  run,
  liveLabel,
  surroundings,
  menu,
}: {
  run: RunView;
  liveLabel?: ReactNode;
  surroundings: RunSurroundings | null;
  /** The overflow menu's items (Delete), for a final run. */
  menu?: ReactNode;
}) {
  const s = run.summary;
  const timeRange = runChartRange(
    run.series,
    run.series.window ? null : (s?.durationSeconds ?? null),
    run.infra.points.at(-1)?.offsetSeconds ?? null,
  );
  // Successful responses first (a target answering fast errors must not look faster); all responses below.
  const l = s ? successFirstLatency(s) : undefined;
  const flags = flagsOfRun(run);
  const noSuccess = hasNoSuccessfulRequest(flags);
  const final = isFinalRunStatus(run.status);
  // Nothing was measured (no summary, or no request at all): no empty cards or charts, one line that says why.
  const measured = s !== null && s.requests > 0;
  const loopback = surroundings?.scriptLoopbackHosts ?? [];
  return (
    <div className="space-y-4">
      <header className="rounded-md border border-zinc-200 bg-white p-3">
        {surroundings && <RunBreadcrumbs run={run} study={surroundings.study} />}
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-base font-semibold">
            {run.target ? (
              <>
                <span data-testid="run-target">{run.target.name}</span>
                <span className="mx-1.5 text-zinc-400">×</span>
                <span data-testid="run-workload">{run.workload?.name ?? NO_VALUE}</span>
              </>
            ) : (
              <span data-testid="run-target">{run.name ?? "imported run"}</span>
            )}
          </h1>
          <StatusBadge status={run.status} testId="run-status" />
          <NoSuccessBadge flags={flags} />
          {liveLabel}
          <span className="ml-auto flex flex-wrap items-center gap-2">
            {final && s && (
              <Link
                href={`/compare?${selectionToQuery({ groups: [{ label: "this run", runIds: [run.id] }] })}`}
                data-testid="run-compare-with"
                className={buttonSecondary}
                title="Open the comparison with this run as a group, and pick the runs to set against it"
              >
                Compare with…
              </Link>
            )}
            {run.target && run.workload && (
              <RoleGate atLeast="editor">
                <RepeatRunButton target={run.target.name} workload={run.workload.name} />
              </RoleGate>
            )}
            <RoleGate atLeast="owner">
              <ShareButton input={{ kind: "run", subject: { runId: run.id } }} />
            </RoleGate>
            {menu && <RunMenu>{menu}</RunMenu>}
          </span>
        </div>
        <RunProvenance provenance={run.provenance} />
        <RunScriptEnv env={run.scriptEnv} />
        {seriesKeyOfRun({ series: run.provenance.series, target: run.target, workload: run.workload }) && (
          <p className="mt-1 text-xs text-zinc-600">
            Trend of its series: <SeriesLink run={run} />
          </p>
        )}
        <RunFailure run={run} />
        {noSuccess && (
          <p
            data-testid="run-no-success"
            data-flag={NO_SUCCESSFUL_REQUEST}
            className="mt-3 rounded border border-amber-300 bg-amber-50 px-2 py-1.5 text-xs text-amber-900"
          >
            {s?.requests ? `Every one of its ${fmtCount(s.requests)} requests failed` : "It recorded no request"}: the pipeline finished,
            but the run measured nothing of the target, so it is left out of verdicts (unless included).
            {loopback.length > 0 ? (
              <span data-testid="run-loopback-hint">
                {" "}
                Its script names {loopback.join(", ")}, a loopback address: the load generator reaches the target only at{" "}
                <code>__ENV.OPSBENCH_BASE_URL</code>; use that in the script.
              </span>
            ) : (
              " Check that the script sends its requests to __ENV.OPSBENCH_BASE_URL and that the target answers there."
            )}
          </p>
        )}
        <dl className="mt-3 flex flex-wrap gap-x-8 gap-y-2">
          <Field label="Run">
            <span title={run.id}>{run.id.slice(0, 8)}</span>
          </Field>
          <Field label="Target kind">{run.target?.kind ?? (run.source === "k6-import" ? "imported k6 results" : NO_VALUE)}</Field>
          <Field label="k6 version">
            <span data-testid="run-k6-version">{run.k6Version ?? NO_VALUE}</span>
          </Field>
          <Field label="k6 exit code">
            <span data-testid="run-k6-exit-code">{run.k6ExitCode ?? NO_VALUE}</span>
          </Field>
          <Field label="Thresholds">
            <span data-testid="run-thresholds" className={noSuccess && run.thresholdsOk ? "text-amber-800" : undefined}>
              {run.thresholdsOk === null
                ? NO_VALUE
                : run.thresholdsOk
                  ? noSuccess
                    ? "passed, on no successful request"
                    : "passed"
                  : "failed"}
            </span>
          </Field>
          {s?.appChecks && s.appChecks.length > 0 && <AppChecksField checks={s.appChecks} />}
          <Field label="Created (UTC)">{fmtTime(run.createdAt)}</Field>
          <Field label="Load window">{s ? `${s.durationSeconds.toFixed(0)} s` : NO_VALUE}</Field>
          <Field label="Started (UTC)">{fmtTime(run.startedAt)}</Field>
          <Field label="Finished (UTC)">{fmtTime(run.finishedAt)}</Field>
        </dl>
        {/* Validity flags: stored by the worker, plus what the summary shows (e.g. dropped iterations); no successful request is said above. */}
        <div className="mt-3 empty:hidden">
          <FlagList flags={flags.filter((f) => f.code !== NO_SUCCESSFUL_REQUEST)} testId="run-flags" />
        </div>
        {s && measured && surroundings && run.status === "SUCCEEDED" && !noSuccess && (
          <BaselineStrip runId={run.id} summary={s} surroundings={surroundings} />
        )}
        {run.loadAdmission && (
          <p data-testid="run-load-admission" className="mt-3 text-xs text-zinc-600">
            {describeLoadAdmission(run.loadAdmission)}
          </p>
        )}
        {run.seriesPrunedAt && (
          <p data-testid="run-series-pruned" className="mt-3 text-xs text-zinc-600">
            The per-second series of this run was pruned on {fmtTime(run.seriesPrunedAt)} (UTC) under the workspace&apos;s retention period:
            the summary below is kept, the charts are empty.
          </p>
        )}
        {run.error && run.status !== "FAILED" && (
          <pre
            data-testid="run-error"
            className="mt-3 whitespace-pre-wrap break-words rounded border border-red-300 bg-red-50 p-2 font-mono text-xs text-red-800"
          >
            {run.error}
          </pre>
        )}
      </header>

      {/* An imported run has no pipeline steps: nothing to list once it is final. */}
      {(!final || run.steps.length > 0) && <Steps steps={run.steps} />}

      {!measured && final && (
        <p data-testid="run-not-measured" className="rounded-md border border-zinc-200 bg-white px-3 py-2 text-xs text-zinc-600">
          {notMeasuredReason(run)}
        </p>
      )}
      {(measured || !final) && (
        <section className="space-y-2">
          <div className="grid grid-cols-2 gap-2 md:grid-cols-4">
            <Stat label="Requests" value={fmtCount(s?.requests)} testId="summary-requests" />
            <Stat
              label="Failed requests"
              value={fmtCount(s?.failures)}
              testId="summary-failures"
              tone={s && s.failures > 0 ? "bad" : undefined}
            />
            <Stat label="Goodput" value={fmtPercent(s?.goodput)} unit="%" testId="summary-goodput" />
            <Stat label="Mean throughput" value={fmtRps(s?.rps)} unit="req/s" testId="summary-rps" />
          </div>
          <div className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-7">
            <Stat label="Latency avg" value={fmtMs(l?.avg)} unit="ms" testId="latency-avg" />
            <Stat label="min" value={fmtMs(l?.min)} unit="ms" testId="latency-min" />
            <Stat label="median (p50)" value={fmtMs(l?.p50)} unit="ms" testId="latency-p50" />
            <Stat label="p90" value={fmtMs(l?.p90)} unit="ms" testId="latency-p90" />
            <Stat label="p95" value={fmtMs(l?.p95)} unit="ms" testId="latency-p95" />
            <Stat label="p99" value={fmtMs(l?.p99)} unit="ms" testId="latency-p99" />
            <Stat label="max" value={fmtMs(l?.max)} unit="ms" testId="latency-max" />
          </div>
          {s && <RunMeasurement s={s} />}
          {s && Object.keys(s.byClass).length > 0 && (
            <p className="font-mono text-2xs text-zinc-500">
              by status class:{" "}
              {Object.entries(s.byClass)
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([k, v]) => `${k} ${v}`)
                .join(" · ")}
            </p>
          )}
          {s && <MoreFigures s={s} infra={run.infra} vcpuPerReplica={run.vcpuPerReplica} />}
        </section>
      )}

      {(measured || !final) && (
        <RunCharts
          {...run.series}
          load={run.load}
          range={timeRange}
          loadSeconds={run.series.window ? null : (s?.durationSeconds ?? null)}
        />
      )}

      {/* Under the latency charts: the target's infra timeline (the same x range and crosshair), then checks, custom metrics and app checks. */}
      {/* A finished run without infra points has nothing to draw: no "no data yet" charts. */}
      {(!final || run.infra.points.length > 0) && (
        <RunInfraCharts
          infra={run.infra}
          targetKind={run.target?.kind ?? null}
          range={timeRange}
          bucketSeconds={run.series.bucketSeconds}
        />
      )}
      <RunChecks checks={run.checks} customMetrics={run.customMetrics} appChecks={s?.appChecks} />

      <Events events={run.events} />
    </div>
  );
}
