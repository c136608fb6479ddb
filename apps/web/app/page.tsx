import { describeStoredWorkload } from "@opsbench/core";
import Link from "next/link";
import type { ReactNode } from "react";
import { NewDefinitionLink } from "@/components/definitions-frame";
import { DemoCommand, EmptyState } from "@/components/empty-state";
import { ListTable } from "@/components/list-table";
import { Panel } from "@/components/panel";
import { RunDemoStudyButton } from "@/features/studies/run-demo-study-button";
import { StartRunForm } from "@/features/runs/start-run-form";
import { describeKind } from "@/features/targets/target-form/kinds/describe-kind";
import { StatusBadge } from "@/components/status-badge";
import { NoSuccessBadge } from "@/features/runs/run-context";
import { RUNS_PER_PAGE, runListCursorFromQuery, runListFilterFromQuery, runListPageHref } from "@/features/runs/run-list-filter";
import { ProvenanceCell, RunFilterForm, SeriesLink } from "@/features/runs/run-provenance";
import { toSpecItem, toTargetItem, type SpecItem } from "@/lib/api/dto";
import { toRunListItem } from "@/lib/api/run-list-item";
import { toStudyListItem } from "@/lib/api/study-list-item";
import { fmtCount, fmtMs, fmtTime } from "@/lib/format";
import { requireMember } from "@/lib/server/workspace";
import { RoleGate } from "@/components/auth/role-gate";

export const dynamic = "force-dynamic";

/** A target or workload on home: its name (a workload's links to its page), its kind and what it does in words. */
function SpecList({
  items,
  testId,
  empty,
  describe,
  href,
}: {
  items: SpecItem[];
  testId: string;
  empty: ReactNode;
  describe: (item: SpecItem) => string[] | null;
  href?: (item: SpecItem) => string;
}) {
  if (items.length === 0) return empty;
  return (
    <ul data-testid={testId} className="divide-y divide-zinc-100 text-xs">
      {items.map((t) => {
        const words = describe(t)?.join("; ") ?? "unreadable spec";
        return (
          <li key={t.id} data-testid="spec-item" data-name={t.name} className="flex items-center gap-3 px-3 py-1.5">
            {href ? (
              <Link href={href(t)} className="shrink-0 whitespace-nowrap font-mono font-medium text-blue-600 hover:underline">
                {t.name}
              </Link>
            ) : (
              <span className="shrink-0 whitespace-nowrap font-mono font-medium">{t.name}</span>
            )}
            <span className="shrink-0 whitespace-nowrap rounded bg-zinc-100 px-1 font-mono text-2xs text-zinc-600">{t.kind}</span>
            <span data-testid="spec-description" className="ml-auto min-w-0 truncate text-2xs text-zinc-600" title={words}>
              {words}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

/** The first thing an empty install shows: what opsbench is for, and the quickest way to see it. */
function Welcome() {
  return (
    <section data-testid="welcome" className="space-y-2 rounded-md border border-blue-200 bg-blue-50/50 px-4 py-3 text-xs text-zinc-700">
      <h1 className="text-sm font-semibold text-zinc-900">Compare deployments, not just endpoints</h1>
      <p>
        opsbench runs the same load against different deployments of an app and shows latency, goodput, scaling and cost side by side. The
        demo study is the IoT study in miniature: an autoscaled service (1–4 replicas, priced as GKE nodes) against a scale-to-zero function
        (priced as Cloud Run) under a spike, 2 repetitions each, about 10 minutes; it ends on the comparison.
      </p>
      <RoleGate atLeast="editor">
        <div className="flex flex-wrap items-center gap-3">
          <RunDemoStudyButton />
          <span className="text-zinc-500">
            or <DemoCommand /> in a terminal (it starts the worker too). Or start your own:
          </span>
          <Link href="/targets/new" className="text-blue-600 hover:underline">
            create a target
          </Link>
          <Link href="/workloads/new" className="text-blue-600 hover:underline">
            create a workload
          </Link>
          <Link href="/studies/new" className="text-blue-600 hover:underline">
            then a study
          </Link>
        </div>
      </RoleGate>
    </section>
  );
}

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function HomePage({ searchParams }: Props) {
  const { scope, role } = await requireMember();
  const query = await searchParams;
  const { filter, given: filtering, error: filterError } = runListFilterFromQuery(query);
  const cursor = runListCursorFromQuery(query);
  const [runPage, targetRows, workloadRows, studyRows] = await Promise.all([
    filterError ? Promise.resolve({ items: [], nextCursor: null }) : scope.runs.page({ ...filter, cursor, limit: RUNS_PER_PAGE }),
    scope.targets.list(),
    scope.workloads.list(),
    scope.studies.list(5),
  ]);
  const studies = studyRows.map(toStudyListItem);
  const runs = runPage.items.map(toRunListItem);
  const targets = targetRows.map((t) => toTargetItem(t, role));
  const workloads = workloadRows.map(toSpecItem);

  return (
    <div className="space-y-4">
      {!filtering && runs.length === 0 && studies.length === 0 && <Welcome />}
      <Panel
        title="Recent runs"
        right={
          targets.length > 0 && workloads.length > 0 ? (
            <RoleGate atLeast="editor">
              <StartRunForm targets={targets.map((t) => t.name)} workloads={workloads.map((w) => w.name)} />
            </RoleGate>
          ) : null
        }
      >
        {(filtering || runs.length > 0) && <RunFilterForm filter={filter} error={filterError} />}
        {runs.length === 0 && filtering ? (
          <EmptyState testId="runs-none-match">No run matches these filters.</EmptyState>
        ) : runs.length === 0 ? (
          <EmptyState testId="runs-empty">
            No runs yet. Runs come from studies, from “Start run” here once a target and a workload exist, from <code>opsbench run</code>,
            or from a k6 result imported with <code>opsbench import k6 FILE</code>.
          </EmptyState>
        ) : (
          <ListTable
            testId="runs-table"
            rows={runs}
            rowKey={(r) => r.id}
            rowData={(r) => ({ "data-testid": "run-row", "data-run-id": r.id })}
            columns={[
              {
                header: "Status",
                cell: (r) => (
                  <span className="inline-flex flex-wrap items-center gap-1">
                    <StatusBadge status={r.status} />
                    <NoSuccessBadge flags={r.flags} />
                  </span>
                ),
              },
              { header: "Target", className: "font-mono", cell: (r) => r.target?.name ?? r.name ?? "imported" },
              {
                header: "Workload",
                className: "font-mono",
                cell: (r) =>
                  r.workload ? (
                    <Link href={`/workloads/${encodeURIComponent(r.workload.name)}`} className="text-blue-600 hover:underline">
                      {r.workload.name}
                    </Link>
                  ) : r.source === "k6-import" ? (
                    "k6 import"
                  ) : (
                    "—"
                  ),
              },
              {
                header: "Commit / branch",
                className: "whitespace-nowrap font-mono",
                cell: (r) => <ProvenanceCell provenance={r.provenance} />,
              },
              { header: "Series", className: "whitespace-nowrap", cell: (r) => <SeriesLink run={r} testId="run-row-series" /> },
              { header: "Created (UTC)", className: "font-mono text-zinc-600", cell: (r) => fmtTime(r.createdAt) },
              { header: "Requests", right: true, className: "font-mono tabular-nums", cell: (r) => fmtCount(r.summary?.requests) },
              { header: "p95 (ms)", right: true, className: "font-mono tabular-nums", cell: (r) => fmtMs(r.summary?.latencyMs.p95) },
              {
                header: "Run",
                cell: (r) => (
                  <Link href={`/runs/${r.id}`} className="font-mono text-blue-600 hover:underline">
                    {r.id.slice(0, 8)}
                  </Link>
                ),
              },
            ]}
          />
        )}
        {(cursor || runPage.nextCursor) && (
          <nav aria-label="pages of runs" className="flex gap-4 border-t border-zinc-100 px-3 py-1.5 text-xs">
            {cursor && (
              <Link data-testid="runs-newest" href={runListPageHref(filter, null)} className="text-blue-600 hover:underline">
                Newest runs
              </Link>
            )}
            {runPage.nextCursor && (
              <Link data-testid="runs-older" href={runListPageHref(filter, runPage.nextCursor)} className="text-blue-600 hover:underline">
                Older runs
              </Link>
            )}
          </nav>
        )}
      </Panel>

      <Panel
        title="Recent studies"
        right={
          <span className="flex items-center gap-3 text-xs">
            <Link href="/studies" data-testid="home-studies-link" className="text-blue-600 hover:underline">
              all studies
            </Link>
            <RoleGate atLeast="editor">
              <Link href="/studies/new" className="rounded bg-zinc-900 px-2 py-1 font-medium text-white hover:bg-zinc-700">
                New study
              </Link>
            </RoleGate>
          </span>
        }
      >
        {studies.length === 0 ? (
          <EmptyState testId="studies-empty" links={[{ href: "/studies/new", label: "New study", atLeast: "editor" }]}>
            No studies yet. A study runs targets × workloads several times in an interleaved order and shows each cell with its 95%
            confidence interval; the demo study (<DemoCommand />) is one.
          </EmptyState>
        ) : (
          <ul className="divide-y divide-zinc-100 text-xs">
            {studies.map((st) => (
              <li key={st.id} className="flex items-center gap-3 px-3 py-1.5">
                <StatusBadge status={st.status} />
                <Link href={`/studies/${st.id}`} className="font-medium text-blue-600 hover:underline">
                  {st.name}
                </Link>
                <span className="text-zinc-500">
                  {st.cells} cells × {st.repetitions} reps
                </span>
                <span className="ml-auto font-mono tabular-nums text-zinc-500">
                  {st.runs.finished}/{st.runs.total} runs · {fmtTime(st.createdAt)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Panel>

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Panel title={`Targets (${targets.length})`} right={<NewDefinitionLink href="/targets/new" label="New target" />}>
          <SpecList
            items={targets}
            testId="targets-list"
            describe={(t) => describeKind(t.kind, t.spec)}
            empty={
              <EmptyState testId="targets-empty" links={[{ href: "/targets/new", label: "New target", atLeast: "editor" }]}>
                No targets yet. A target is how an app is deployed: replicas behind a load balancer with an autoscaler, or a scale-to-zero
                function. Add one with “New target” (or POST /api/v1/targets).
              </EmptyState>
            }
          />
        </Panel>
        <Panel title={`Workloads (${workloads.length})`} right={<NewDefinitionLink href="/workloads/new" label="New workload" />}>
          <SpecList
            items={workloads}
            testId="workloads-list"
            describe={(w) => describeStoredWorkload(w.spec)}
            href={(w) => `/workloads/${encodeURIComponent(w.name)}`}
            empty={
              <EmptyState testId="workloads-empty" links={[{ href: "/workloads/new", label: "New workload", atLeast: "editor" }]}>
                No workloads yet. A workload is a k6 load profile: a preset of the studies (IoT spike, concurrency sweep, …), your own
                fields, or a k6 script. Add one with “New workload”.
              </EmptyState>
            }
          />
        </Panel>
      </div>
    </div>
  );
}
