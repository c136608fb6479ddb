import { TREND_LATENCY_METRICS } from "@opsbench/core";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { PageHeader, Panel } from "@/components/panel";
import { EmptyState } from "@/components/empty-state";
import { decodedSegment, seriesHref, seriesKeyFromParam, trendQuery } from "@/features/series/series-query";
import { SeriesTrend } from "@/features/series/series-trend";
import { orNotFound } from "@/lib/server/or-not-found";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ key: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Trend ${decodedSegment((await params).key)}` };
}

export default async function SeriesPage({ params, searchParams }: Props) {
  const key = seriesKeyFromParam((await params).key);
  if (!key) notFound();
  const { metric, error } = trendQuery(await searchParams);
  const scope = await resolveWorkspace();
  const view = await orNotFound(scope.series.points(key, metric ? { metric } : {}));
  return (
    <div className="space-y-4">
      <PageHeader title={`Trend: ${view.series.title}`}>
        <p className="text-xs text-zinc-600">
          {view.series.kind === "named" ? "Runs given this series name" : "Runs of this target and workload without a series name"}:{" "}
          {view.points.length} finished{view.truncated ? " (the newest)" : ""}.{" "}
          <Link href="/series" className="text-blue-600 hover:underline">
            All series
          </Link>
        </p>
      </PageHeader>
      <nav aria-label="latency metric" className="flex gap-2 text-xs">
        <span className="text-zinc-600">latency metric:</span>
        {TREND_LATENCY_METRICS.map((m) => (
          <Link
            key={m}
            href={seriesHref(view.series.key, m)}
            aria-current={m === view.metric ? "page" : undefined}
            className={m === view.metric ? "font-semibold text-zinc-900" : "text-blue-600 hover:underline"}
          >
            {m}
          </Link>
        ))}
        {error && <span className="text-red-700">{error}; p95 shown</span>}
      </nav>
      <Panel title="Performance over time">
        {view.points.length === 0 ? (
          <EmptyState testId="trend-empty">No run of this series has finished yet.</EmptyState>
        ) : (
          <SeriesTrend view={view} />
        )}
      </Panel>
    </div>
  );
}
