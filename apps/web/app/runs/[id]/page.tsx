import type { Metadata } from "next";
import { zoomFromQuery } from "@/features/compare/zoom";
import { chartSeries } from "@/components/charts/chart-series";
import { BaselineButton } from "@/features/runs/baseline-button";
import { RunArtifacts } from "@/features/runs/run-artifacts";
import { RunLive } from "@/features/runs/run-live";
import { orNotFound } from "@/lib/server/or-not-found";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Run ${(await params).id.slice(0, 8)}` };
}

export default async function RunPage({ params, searchParams }: Props) {
  const { id } = await params;
  const scope = await resolveWorkspace();
  const zoom = zoomFromQuery(await searchParams);
  const view = await orNotFound(scope.runs.view(id, zoom ? { window: zoom } : {}));
  // The browser gets what a chart can draw; a drag on a chart zooms (from/to) and comes back at full resolution.
  const initial = { ...view, series: { ...view.series, points: chartSeries(view.series.points) } };
  const [artifacts, surroundings] = await Promise.all([scope.runs.artifacts(id), scope.runs.surroundings(id)]);
  const pair = view.target && view.workload ? { target: view.target.name, workload: view.workload.name } : null;
  const baseline = pair && view.status === "SUCCEEDED" ? ((await scope.runs.baselines(pair))[0] ?? null) : null;
  return (
    <>
      <RunLive key={`${view.id}:${zoom?.fromSeconds ?? ""}-${zoom?.toSeconds ?? ""}`} initial={initial} surroundings={surroundings} />
      {pair && view.status === "SUCCEEDED" && <BaselineButton runId={view.id} isBaseline={baseline?.runId === view.id} />}
      <RunArtifacts runId={view.id} artifacts={artifacts} />
    </>
  );
}
