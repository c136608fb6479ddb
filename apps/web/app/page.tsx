import Link from "next/link";
import type { ReactNode } from "react";
import { StartRunForm } from "@/components/start-run-form";
import { StatusBadge } from "@/components/status-badge";
import { toSpecItem, type SpecItem } from "@/lib/api/dto";
import { toRunListItem } from "@/lib/api/run-list-item";
import { toStudyListItem } from "@/lib/api/study-list-item";
import { fmtCount, fmtMs, fmtTime } from "@/lib/format";
import { resolveWorkspace } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";

function Panel({ title, right, children }: { title: string; right?: ReactNode; children: ReactNode }) {
  return (
    <section className="rounded-md border border-zinc-200 bg-white">
      <div className="flex items-center justify-between gap-3 border-b border-zinc-200 px-3 py-2">
        <h2 className="text-xs font-medium text-zinc-600">{title}</h2>
        {right}
      </div>
      {children}
    </section>
  );
}

const th = "px-3 py-1.5 text-left text-[11px] font-medium uppercase tracking-wide text-zinc-500";
const td = "px-3 py-1.5";

function SpecList({ items, testId, empty }: { items: SpecItem[]; testId: string; empty: string }) {
  if (items.length === 0) return <p className="px-3 py-2 text-xs text-zinc-400">{empty}</p>;
  return (
    <ul data-testid={testId} className="divide-y divide-zinc-100 text-xs">
      {items.map((t) => (
        <li key={t.id} className="flex items-center gap-3 px-3 py-1.5">
          <span className="shrink-0 whitespace-nowrap font-mono font-medium">{t.name}</span>
          <span className="shrink-0 whitespace-nowrap rounded bg-zinc-100 px-1 font-mono text-[11px] text-zinc-600">{t.kind}</span>
          <span className="ml-auto min-w-0 truncate font-mono text-[11px] text-zinc-400" title={JSON.stringify(t.spec)}>
            {JSON.stringify(t.spec).slice(0, 60)}
          </span>
        </li>
      ))}
    </ul>
  );
}

export default async function HomePage() {
  const scope = await resolveWorkspace();
  const [runRows, targetRows, workloadRows, studyRows] = await Promise.all([
    scope.runs.list(50),
    scope.targets.list(),
    scope.workloads.list(),
    scope.studies.list(5),
  ]);
  const studies = studyRows.map(toStudyListItem);
  const runs = runRows.map(toRunListItem);
  const targets = targetRows.map(toSpecItem);
  const workloads = workloadRows.map(toSpecItem);

  return (
    <div className="space-y-4">
      <Panel
        title="Recent runs"
        right={
          targets.length > 0 && workloads.length > 0 ? (
            <StartRunForm targets={targets.map((t) => t.name)} workloads={workloads.map((w) => w.name)} />
          ) : null
        }
      >
        {runs.length === 0 ? (
          <p className="px-3 py-2 text-xs text-zinc-400">
            No runs yet. Add a target and a workload, then start a run here or with `opsbench run`.
          </p>
        ) : (
          <div className="overflow-x-auto">
            <table data-testid="runs-table" className="w-full text-xs">
              <thead className="border-b border-zinc-200 bg-zinc-50">
                <tr>
                  <th className={th}>Status</th>
                  <th className={th}>Target</th>
                  <th className={th}>Workload</th>
                  <th className={th}>Created (UTC)</th>
                  <th className={`${th} text-right`}>Requests</th>
                  <th className={`${th} text-right`}>p95 (ms)</th>
                  <th className={th}>Run</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {runs.map((r) => (
                  <tr key={r.id} data-testid="run-row" data-run-id={r.id} className="hover:bg-zinc-50">
                    <td className={td}>
                      <StatusBadge status={r.status} />
                    </td>
                    <td className={`${td} font-mono`}>{r.target?.name ?? r.name ?? "imported"}</td>
                    <td className={`${td} font-mono`}>{r.workload?.name ?? (r.source === "k6-import" ? "k6 import" : "—")}</td>
                    <td className={`${td} font-mono text-zinc-600`}>{fmtTime(r.createdAt)}</td>
                    <td className={`${td} text-right font-mono tabular-nums`}>{fmtCount(r.summary?.requests)}</td>
                    <td className={`${td} text-right font-mono tabular-nums`}>{fmtMs(r.summary?.latencyMs.p95)}</td>
                    <td className={td}>
                      <Link href={`/runs/${r.id}`} className="font-mono text-blue-600 hover:underline">
                        {r.id.slice(0, 8)}
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>

      <Panel
        title="Recent studies"
        right={
          <span className="flex items-center gap-3 text-xs">
            <Link href="/studies" data-testid="home-studies-link" className="text-blue-600 hover:underline">
              all studies
            </Link>
            <Link href="/studies/new" className="rounded bg-zinc-900 px-2 py-1 font-medium text-white hover:bg-zinc-700">
              New study
            </Link>
          </span>
        }
      >
        {studies.length === 0 ? (
          <p className="px-3 py-2 text-xs text-zinc-400">
            No studies yet. A study runs targets × workloads several times in an interleaved order and shows each cell with its 95%
            confidence interval.
          </p>
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
        <Panel
          title={`Targets (${targets.length})`}
          right={
            <Link href="/targets/new" className="text-xs text-blue-600 hover:underline">
              New target
            </Link>
          }
        >
          <SpecList items={targets} testId="targets-list" empty="No targets yet. Add one with “New target” (or POST /api/v1/targets)." />
        </Panel>
        <Panel
          title={`Workloads (${workloads.length})`}
          right={
            <Link href="/workloads/new" className="text-xs text-blue-600 hover:underline">
              New workload
            </Link>
          }
        >
          <SpecList
            items={workloads}
            testId="workloads-list"
            empty="No workloads yet. Add one with “New workload” (a preset, your own fields or a k6 script)."
          />
        </Panel>
      </div>
    </div>
  );
}
