"use client";

// Picks runs to compare from the recent runs: ticked runs are grouped by target x
// workload (a study cell) automatically; each group's label can be edited, and the
// first group is the baseline the verdicts compare against.
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { selectionToQuery } from "@/features/compare/selection";
import { fmtCount, fmtMs, fmtTime } from "@/lib/format";
import { groupColor } from "@/components/charts/palette";
import { StatusBadge } from "@/components/status-badge";
import { DemoCommand, EmptyState } from "@/components/empty-state";

export interface PickerRun {
  id: string;
  status: string;
  studyId: string | null;
  repetition: number;
  target: string | null;
  workload: string | null;
  name: string | null;
  createdAt: string;
  requests: number | null;
  p95: number | null;
}

const keyOf = (r: PickerRun) => `${r.target ?? r.name ?? "imported"}\u0000${r.workload ?? "k6 import"}`;
const defaultLabel = (key: string) => key.replace("\u0000", " x ");
const comparable = (r: PickerRun) => r.status === "SUCCEEDED" && r.requests !== null;
const th = "th-cell";

export function ComparePicker({
  runs,
  initial,
  startOpen,
}: {
  runs: PickerRun[];
  initial: Array<{ label: string; runIds: string[] }> | null;
  startOpen: boolean;
}) {
  const router = useRouter();
  const byId = useMemo(() => new Map(runs.map((r) => [r.id, r])), [runs]);
  const [open, setOpen] = useState(startOpen);
  const [selected, setSelected] = useState<string[]>(() => (initial ?? []).flatMap((g) => g.runIds).filter((id) => byId.has(id)));
  const [labels, setLabels] = useState<Record<string, string>>(() => {
    const out: Record<string, string> = {};
    for (const g of initial ?? []) {
      const r = byId.get(g.runIds[0] ?? "");
      if (r) out[keyOf(r)] = g.label;
    }
    return out;
  });
  const [order, setOrder] = useState<string[]>(() => [
    ...new Set(
      (initial ?? [])
        .flatMap((g) => g.runIds)
        .map((id) => byId.get(id))
        .filter((r): r is PickerRun => !!r)
        .map(keyOf),
    ),
  ]);

  const groups = useMemo(() => {
    const keys = [...new Set(selected.map((id) => keyOf(byId.get(id)!)))];
    const sorted = [...keys].sort(
      (a, b) => (order.indexOf(a) === -1 ? 1e9 : order.indexOf(a)) - (order.indexOf(b) === -1 ? 1e9 : order.indexOf(b)),
    );
    return sorted.map((key) => ({
      key,
      label: labels[key]?.trim() || defaultLabel(key),
      runIds: selected.filter((id) => keyOf(byId.get(id)!) === key),
    }));
  }, [selected, byId, labels, order]);

  const toggle = (r: PickerRun) => {
    setSelected((s) => (s.includes(r.id) ? s.filter((x) => x !== r.id) : [...s, r.id]));
    setOrder((o) => (o.includes(keyOf(r)) ? o : [...o, keyOf(r)]));
  };
  const makeBaseline = (key: string) => setOrder((o) => [key, ...o.filter((k) => k !== key)]);
  const studies = [...new Set(runs.filter((r) => r.studyId && comparable(r)).map((r) => r.studyId!))];
  const query = selectionToQuery({ groups: groups.map((g) => ({ label: g.label, runIds: g.runIds })) });

  if (!open) {
    return (
      <button
        type="button"
        data-testid="cmp-change-selection"
        onClick={() => setOpen(true)}
        className="rounded border border-zinc-300 bg-white px-2 py-0.5 text-xs text-zinc-700 hover:border-zinc-400 print:hidden"
      >
        Change selection…
      </button>
    );
  }
  return (
    <section data-testid="cmp-picker" className="rounded-md border border-zinc-200 bg-white print:hidden">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2">
        <h2 className="text-xs font-medium text-zinc-700">
          Pick runs (grouped by target × workload; each group is one column of the comparison)
        </h2>
        {studies.length > 0 && (
          <span className="flex flex-wrap items-center gap-1 text-2xs text-zinc-500">
            whole study:
            {studies.map((s) => (
              <button
                key={s}
                type="button"
                className="rounded border border-zinc-300 px-1.5 font-mono hover:border-zinc-400"
                onClick={() => router.push(`/compare?${selectionToQuery({ studyId: s })}`)}
              >
                {s.slice(0, 8)}
              </button>
            ))}
          </span>
        )}
      </div>
      {runs.length === 0 && (
        <EmptyState testId="cmp-empty" links={[{ href: "/studies/new", label: "New study", atLeast: "editor" }]}>
          Nothing to compare yet: a comparison puts finished runs side by side, and there are none. The demo study (<DemoCommand />, or its
          button on the home page) runs two deployments of one app and ends here; a study of your own does too.
        </EmptyState>
      )}
      <div className={runs.length === 0 ? "hidden" : "max-h-80 overflow-auto"}>
        <table className="w-full text-xs">
          <thead className="sticky top-0 border-b border-zinc-200 bg-zinc-50">
            <tr>
              <th className={th} />
              <th className={th}>Status</th>
              <th className={th}>Target</th>
              <th className={th}>Workload</th>
              <th className={th}>Study / rep</th>
              <th className={th}>Created (UTC)</th>
              <th className={`${th} text-right`}>Requests</th>
              <th className={`${th} text-right`}>p95 ms</th>
              <th className={th}>Run</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {runs.map((r) => (
              <tr key={r.id} data-testid="cmp-pick-row" data-run-id={r.id} className={comparable(r) ? "hover:bg-zinc-50" : "text-zinc-400"}>
                <td className="px-2 py-1">
                  <input
                    type="checkbox"
                    data-testid="cmp-pick"
                    aria-label={`compare run ${r.id.slice(0, 8)}`}
                    disabled={!comparable(r)}
                    checked={selected.includes(r.id)}
                    onChange={() => toggle(r)}
                  />
                </td>
                <td className="px-2 py-1">
                  <StatusBadge status={r.status} />
                </td>
                <td className="px-2 py-1 font-mono">{r.target ?? r.name ?? "imported"}</td>
                <td className="px-2 py-1 font-mono">{r.workload ?? "k6 import"}</td>
                <td className="px-2 py-1 font-mono text-zinc-500">{r.studyId ? `${r.studyId.slice(0, 8)} #${r.repetition}` : "—"}</td>
                <td className="px-2 py-1 font-mono text-zinc-600">{fmtTime(r.createdAt)}</td>
                <td className="td-num-sm">{fmtCount(r.requests)}</td>
                <td className="td-num-sm">{fmtMs(r.p95)}</td>
                <td className="px-2 py-1 font-mono text-zinc-500">{r.id.slice(0, 8)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="space-y-2 border-t border-zinc-200 px-3 py-2">
        {groups.length === 0 ? (
          <p className="text-xs text-zinc-400">Tick runs above; runs of the same target and workload form one group (their repetitions).</p>
        ) : (
          <ol data-testid="cmp-pick-groups" className="space-y-1">
            {groups.map((g, i) => (
              <li key={g.key} className="flex flex-wrap items-center gap-2 text-xs">
                <span className="h-2.5 w-2.5 rounded-sm" style={{ background: groupColor(i) }} />
                <input
                  data-testid="cmp-group-label"
                  value={labels[g.key] ?? defaultLabel(g.key)}
                  maxLength={80}
                  onChange={(e) => setLabels((l) => ({ ...l, [g.key]: e.target.value }))}
                  className="w-56 rounded border border-zinc-300 px-1.5 py-0.5 font-mono"
                  aria-label={`label of group ${i + 1}`}
                />
                <span className="text-zinc-500">
                  {g.runIds.length} run{g.runIds.length === 1 ? "" : "s"}
                </span>
                {i === 0 ? (
                  <span className="rounded bg-zinc-100 px-1 text-2xs text-zinc-500">baseline</span>
                ) : (
                  <button type="button" className="text-2xs text-blue-600 hover:underline" onClick={() => makeBaseline(g.key)}>
                    make baseline
                  </button>
                )}
              </li>
            ))}
          </ol>
        )}
        <div className="flex gap-2">
          <button
            type="button"
            data-testid="cmp-submit"
            disabled={groups.length === 0}
            onClick={() => router.push(`/compare?${query}`)}
            className="rounded bg-zinc-900 px-3 py-1 text-xs font-medium text-white hover:bg-zinc-700 disabled:opacity-40"
          >
            Compare {groups.length} group{groups.length === 1 ? "" : "s"}
          </button>
          {selected.length > 0 && (
            <button type="button" className="text-xs text-zinc-500 hover:underline" onClick={() => setSelected([])}>
              clear
            </button>
          )}
        </div>
      </div>
    </section>
  );
}
