import { compileK6Script, describeWorkload, loadProfile, plannedSeconds, type WorkloadSpec, workloadSpec } from "@opsbench/core";
import type { Metadata } from "next";
import Link from "next/link";
import { NewDefinitionLink } from "@/components/definitions-frame";
import { buttonPrimary, PageHeader, Panel } from "@/components/panel";
import { LoadProfileChart } from "@/features/workloads/load-profile-chart";
import { LoopbackHint } from "@/features/workloads/loopback-hint";
import { type WorkloadRun, WorkloadRuns } from "@/features/workloads/workload-page/workload-runs";
import { toRunListItem } from "@/lib/api/run-list-item";
import { fmtDuration, fmtTime } from "@/lib/format";
import { orNotFound } from "@/lib/server/or-not-found";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ name: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Workload ${decodeURIComponent((await params).name)}` };
}

const RECENT_RUNS = 20;

/** A spec without what a run resolves when it is made (a measured rate), so a run's copy compares with the saved one. */
function comparable(spec: WorkloadSpec | null): string {
  if (!spec) return "";
  const { rate: _rate, rateSource: _source, ...rest } = spec as WorkloadSpec & { rate?: unknown; rateSource?: unknown };
  return JSON.stringify(rest);
}

const codeBlock = "max-h-[36rem] overflow-auto px-3 py-2 font-mono text-2xs leading-4 text-zinc-800";

/**
 * One workload: what it does in words, its load profile, its script (a saved script as saved; a generated kind as
 * the k6 script opsbench compiles for it), its recent runs, and Edit.
 */
export default async function WorkloadPage({ params, searchParams }: Props) {
  const name = decodeURIComponent((await params).name);
  const saved = (await searchParams).saved;
  const scope = await resolveWorkspace();
  const workload = await orNotFound(scope.workloads.byName(name));
  const parsed = workloadSpec.safeParse(workload.spec);
  const spec = parsed.success ? parsed.data : null;
  const runs: WorkloadRun[] = (await scope.runs.list(RECENT_RUNS, { workloadId: workload.id })).map((r) => ({
    ...toRunListItem(r),
    earlierSpec: r.workloadSpec !== null && spec !== null && comparable(r.workloadSpec) !== comparable(spec),
  }));
  const planned = spec ? plannedSeconds(spec) : 0;

  return (
    <div className="space-y-4" data-testid="workload-page" data-name={workload.name}>
      <PageHeader
        title={<span className="font-mono">{workload.name}</span>}
        right={<NewDefinitionLink href={`/workloads/${encodeURIComponent(workload.name)}/edit`} label="Edit" className={buttonPrimary} />}
      >
        <span className="rounded bg-zinc-100 px-1 font-mono text-2xs text-zinc-600">{workload.kind}</span>
        <Link href="/workloads" className="text-xs text-blue-600 hover:underline">
          all workloads
        </Link>
      </PageHeader>
      {typeof saved === "string" && (
        <p data-testid="workload-saved" className="rounded border border-emerald-300 bg-emerald-50 px-2 py-1 text-xs text-emerald-800">
          Saved: {workload.name}
        </p>
      )}

      <Panel title="What it does">
        <div className="space-y-2 px-3 py-2 text-xs text-zinc-700">
          {spec ? (
            <ul data-testid="workload-description" className="space-y-0.5">
              {describeWorkload(spec).map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          ) : (
            <p data-testid="workload-description">
              The saved spec is not a valid workload for this version of opsbench: {parsed.error?.issues[0]?.message}. Edit it to fix it.
            </p>
          )}
          <p className="text-zinc-500">
            {planned > 0 && (
              <>
                Planned load {spec?.kind === "shared-iterations" ? "at most " : ""}
                <b data-testid="planned-seconds" data-seconds={planned}>
                  {fmtDuration(planned * 1000)}
                </b>
                {" · "}
              </>
            )}
            created {fmtTime(workload.createdAt.toISOString())} · updated {fmtTime(workload.updatedAt.toISOString())} (UTC)
          </p>
          {spec?.kind === "script" && <LoopbackHint source={spec.source} />}
        </div>
      </Panel>

      {spec && spec.kind !== "script" && (
        <LoadProfileChart
          series={[{ label: workload.name, points: loadProfile(spec) }]}
          note={spec.kind === "shared-iterations" ? "Ends when all its iterations are done (at most its max duration)." : undefined}
        />
      )}

      {spec?.kind === "script" ? (
        <Panel title="The k6 script (as saved)">
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable box must be reachable by keyboard (axe: scrollable-region-focusable) */}
          <pre data-testid="workload-script" className={codeBlock} tabIndex={0}>
            {spec.source}
          </pre>
          {spec.files && Object.keys(spec.files).length > 0 && (
            <p className="border-t border-zinc-100 px-3 py-1.5 text-2xs text-zinc-500">
              With its files: {Object.keys(spec.files).join(", ")}
            </p>
          )}
        </Panel>
      ) : spec ? (
        <Panel title="The k6 script opsbench compiles from it (opsbench workload show NAME --k6)">
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable box must be reachable by keyboard (axe: scrollable-region-focusable) */}
          <pre data-testid="workload-compiled-script" className={codeBlock} tabIndex={0}>
            {compileK6Script(spec)}
          </pre>
        </Panel>
      ) : null}

      <Panel title={`Recent runs (${runs.length}${runs.length === RECENT_RUNS ? ", the newest" : ""})`}>
        <WorkloadRuns runs={runs} workloadName={workload.name} />
      </Panel>

      <details className="rounded-md border border-zinc-200 bg-white">
        <summary className="cursor-pointer px-3 py-1.5 text-xs text-zinc-600">The saved spec (JSON)</summary>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable box must be reachable by keyboard (axe: scrollable-region-focusable) */}
        <pre data-testid="workload-spec-json" className={`${codeBlock} border-t border-zinc-100`} tabIndex={0}>
          {JSON.stringify(workload.spec, null, 2)}
        </pre>
      </details>
    </div>
  );
}
