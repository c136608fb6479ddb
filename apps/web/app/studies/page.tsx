import type { Metadata } from "next";
import Link from "next/link";
import { buttonPrimary, PageHeader, Panel, tableCell as td, tableHead as th } from "@/components/panel";
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
          <div className="overflow-x-auto">
            <table data-testid="studies-table" className="w-full text-xs">
              <thead className="border-b border-zinc-200 bg-zinc-50">
                <tr>
                  <th className={th}>Status</th>
                  <th className={th}>Name</th>
                  <th className={`${th} text-right`}>Cells</th>
                  <th className={`${th} text-right`}>Reps</th>
                  <th className={`${th} text-right`}>Runs done</th>
                  <th className={th}>Order</th>
                  <th className={`${th} text-right`}>Seed</th>
                  <th className={th}>Created (UTC)</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {studies.map((s) => (
                  <tr key={s.id} data-testid="study-row" data-study-id={s.id} className="hover:bg-zinc-50">
                    <td className={td}>
                      <StatusBadge status={s.status} />
                    </td>
                    <td className={td}>
                      <Link href={`/studies/${s.id}`} className="font-medium text-blue-600 hover:underline">
                        {s.name}
                      </Link>
                    </td>
                    <td className={`${td} text-right font-mono tabular-nums`}>{s.cells}</td>
                    <td className={`${td} text-right font-mono tabular-nums`}>{s.repetitions}</td>
                    <td className={`${td} text-right font-mono tabular-nums`}>
                      {s.runs.finished}/{s.runs.total}
                      {s.runs.failed > 0 && <span className="ml-1 text-red-600">({s.runs.failed} failed)</span>}
                      {s.runs.aborted > 0 && <span className="ml-1 text-amber-700">({s.runs.aborted} aborted)</span>}
                    </td>
                    <td className={`${td} font-mono text-zinc-600`}>{s.order}</td>
                    <td className={`${td} text-right font-mono tabular-nums text-zinc-600`}>{s.seed ?? NO_VALUE}</td>
                    <td className={`${td} whitespace-nowrap font-mono text-zinc-600`}>{fmtTime(s.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
    </div>
  );
}
