import type { Metadata } from "next";
import Link from "next/link";
import { CompareMarginControl } from "@/features/compare/compare-margin-control";
import { ComparePicker, type PickerRun } from "@/features/compare/compare-picker";
import { CompareView } from "@/features/compare/compare-view";
import type { ShareInput } from "@opsbench/api";
import { resolveWorkspace } from "@/lib/server/workspace";
import { forCharts, selectionOf } from "@/features/compare/compare-data";
import { zoomFromQuery } from "@/features/compare/zoom";
import { ZoomBadge } from "@/components/charts/time-panel";
import { comparisonFromQuery } from "@/features/compare/load-from-query";
import { marginFromQuery, runCvFromQuery, verdictChoicesFromQuery, withVerdictMargin } from "@/features/compare/margin";
import { selectionToQuery } from "@/features/compare/selection";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Compare" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function ComparePage({ searchParams }: Props) {
  const scope = await resolveWorkspace();
  const params = await searchParams;
  const margin = marginFromQuery(params);
  const runCv = runCvFromQuery(params);
  const choices = verdictChoicesFromQuery(params);
  const [result, rows] = await Promise.all([comparisonFromQuery(scope, params), scope.runs.list(100)]);
  const zoom = zoomFromQuery(params);
  const runs: PickerRun[] = rows.map((r) => ({
    id: r.id,
    status: r.status,
    studyId: r.studyId,
    repetition: r.repetition,
    target: r.target?.name ?? null,
    workload: r.workload?.name ?? null,
    name: r.name,
    createdAt: r.createdAt.toISOString(),
    requests: r.summary?.requests ?? null,
    p95: r.summary?.latencyMs.p95 ?? null,
  }));
  // Every chart over time reads one window at one bucket length (windowResolution): the zoom, else the whole runs,
  // to the last second with answers (the requests the merged results count).
  const data =
    result.state !== "ok"
      ? null
      : forCharts(
          withVerdictMargin(result.data, margin.margin),
          await scope.compareWindow(selectionOf(result.data).groups, zoom?.fromSeconds ?? 0, zoom?.toSeconds),
          zoom !== null,
        );
  const query = result.state === "ok" ? selectionToQuery(result.input) : "";
  const share: ShareInput | undefined =
    result.state !== "ok"
      ? undefined
      : "studyId" in result.input
        ? { kind: "study", subject: { studyId: result.input.studyId } }
        : { kind: "comparison", subject: selectionOf(result.data) };

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-base font-semibold">
          Compare{data?.title ? <span className="ml-2 font-normal text-zinc-500">study {data.title}</span> : null}
        </h1>
        <Link href="/share" className="text-xs text-blue-600 hover:underline print:hidden">
          Shared links
        </Link>
      </div>
      {data?.chart?.window && <ZoomBadge window={data.chart.window} testId="cmp-zoom" />}
      <ComparePicker key={query} runs={runs} initial={data ? selectionOf(data).groups : null} startOpen={!data} />
      {result.state === "invalid" && (
        <p data-testid="cmp-error" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-xs text-red-800">
          {result.message}
        </p>
      )}
      {margin.error && (
        <p data-testid="cmp-margin-error" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-xs text-red-800">
          {margin.error}; the verdicts use the default margin
        </p>
      )}
      {runCv.error && (
        <p data-testid="cmp-run-cv-error" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-xs text-red-800">
          {runCv.error}; single runs are judged within-run
        </p>
      )}
      {choices.error && (
        <p data-testid="cmp-choices-error" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-xs text-red-800">
          {choices.error}; the verdicts use the defaults
        </p>
      )}
      {data && (
        <CompareMarginControl
          selection={new URLSearchParams(query)}
          marginPercent={margin.margin * 100}
          runCvPercent={runCv.runToRunCv === undefined ? undefined : runCv.runToRunCv * 100}
          choices={choices.options}
        />
      )}
      {data && <CompareView data={data} mode="app" share={share} reportHref={`/compare/report?${query}`} />}
    </div>
  );
}
