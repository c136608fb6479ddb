import type { Metadata } from "next";
import Link from "next/link";
import { EmptyState } from "@/components/empty-state";
import { ListTable } from "@/components/list-table";
import { PageHeader, Panel } from "@/components/panel";
import { StatusBadge } from "@/components/status-badge";
import { seriesHref, seriesListQuery } from "@/features/series/series-query";
import { fmtTime, NO_VALUE } from "@/lib/format";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Trends" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function SeriesListPage({ searchParams }: Props) {
  const scope = await resolveWorkspace();
  const query = seriesListQuery(await searchParams);
  const page = await scope.series.page(query);
  return (
    <div className="space-y-4">
      <PageHeader title="Trends">
        <p className="text-xs text-zinc-600">
          A series is the runs of one target and workload, or the runs given one series name (<code>--series NAME</code>); its trend shows
          each run with its interval, and where the level changed.
        </p>
      </PageHeader>
      <Panel title="Series">
        {page.items.length === 0 ? (
          <EmptyState testId="series-empty">
            No series yet. Runs of a saved target and workload form one; imported and external runs form one by name (
            <code>opsbench import k6 FILE --series NAME</code>).
          </EmptyState>
        ) : (
          <ListTable
            testId="series-table"
            rows={page.items}
            rowKey={(s) => s.key}
            rowData={(s) => ({ "data-testid": "series-row", "data-series-key": s.key })}
            columns={[
              {
                header: "Series",
                cell: (s) => (
                  <Link href={seriesHref(s.key)} className="font-medium text-blue-600 hover:underline">
                    {s.title}
                  </Link>
                ),
              },
              { header: "Kind", cell: (s) => (s.kind === "named" ? "by name" : "target × workload") },
              { header: "Target kind", cell: (s) => s.target?.kind ?? NO_VALUE },
              { header: "Runs", right: true, className: "font-mono tabular-nums", cell: (s) => s.runs },
              { header: "Last run", cell: (s) => <StatusBadge status={s.lastRun.status} /> },
              { header: "Last run at (UTC)", className: "font-mono text-zinc-600", cell: (s) => fmtTime(s.lastRun.createdAt) },
            ]}
          />
        )}
        {page.nextCursor && (
          <Link
            data-testid="series-next"
            href={`/series?cursor=${encodeURIComponent(page.nextCursor)}`}
            className="mt-2 inline-block text-xs text-blue-600 hover:underline"
          >
            More series
          </Link>
        )}
      </Panel>
    </div>
  );
}
