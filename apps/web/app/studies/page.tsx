import type { Metadata } from "next";
import Link from "next/link";
import { ListTable } from "@/components/list-table";
import { buttonPrimary, PageHeader, Panel } from "@/components/panel";
import { StatusBadge } from "@/components/status-badge";
import { toStudyListItem } from "@/lib/api/study-list-item";
import { fmtTime, NO_VALUE } from "@/lib/format";
import { DemoCommand, EmptyState } from "@/components/empty-state";
import { resolveWorkspace } from "@/lib/server/workspace";
import { RoleGate } from "@/components/auth/role-gate";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Studies" };

export default async function StudiesPage() {
  const scope = await resolveWorkspace();
  const studies = (await scope.studies.list(100)).map(toStudyListItem);
  return (
    <div className="space-y-4">
      <PageHeader
        title="Studies"
        right={
          <RoleGate atLeast="editor">
            <Link href="/studies/new" className={buttonPrimary}>
              New study
            </Link>
          </RoleGate>
        }
      />
      <Panel title={`Studies (${studies.length})`}>
        {studies.length === 0 ? (
          <EmptyState testId="studies-empty" links={[{ href: "/studies/new", label: "New study", atLeast: "editor" }]}>
            No studies yet. A study runs every target against every workload several times, in an interleaved random order, and reports each
            cell with its spread (mean ± SD, 95% CI). Start one with “New study” or <code>opsbench study run FILE.json</code>; the demo
            study (<DemoCommand />, or its button on the home page) is a ready-made one.
          </EmptyState>
        ) : (
          <ListTable
            testId="studies-table"
            rows={studies}
            rowKey={(s) => s.id}
            rowData={(s) => ({ "data-testid": "study-row", "data-study-id": s.id })}
            columns={[
              { header: "Status", cell: (s) => <StatusBadge status={s.status} /> },
              {
                header: "Name",
                cell: (s) => (
                  <Link href={`/studies/${s.id}`} className="font-medium text-blue-600 hover:underline">
                    {s.name}
                  </Link>
                ),
              },
              { header: "Cells", right: true, className: "font-mono tabular-nums", cell: (s) => s.cells },
              { header: "Reps", right: true, className: "font-mono tabular-nums", cell: (s) => s.repetitions },
              {
                header: "Runs done",
                right: true,
                className: "font-mono tabular-nums",
                cell: (s) => (
                  <>
                    {s.runs.finished}/{s.runs.total}
                    {s.runs.failed > 0 && <span className="ml-1 text-red-600">({s.runs.failed} failed)</span>}
                    {s.runs.aborted > 0 && <span className="ml-1 text-amber-700">({s.runs.aborted} aborted)</span>}
                  </>
                ),
              },
              { header: "Order", className: "font-mono text-zinc-600", cell: (s) => s.order },
              { header: "Seed", right: true, className: "font-mono tabular-nums text-zinc-600", cell: (s) => s.seed ?? NO_VALUE },
              { header: "Created (UTC)", className: "whitespace-nowrap font-mono text-zinc-600", cell: (s) => fmtTime(s.createdAt) },
            ]}
          />
        )}
      </Panel>
    </div>
  );
}
