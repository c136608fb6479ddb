"use client";

// Every share link of the workspace, live or revoked, with Revoke. Links
// themselves cannot be shown again (only a hash of each token is kept).
import Link from "next/link";
import { useState } from "react";
import { selectionToQuery } from "@/features/compare/selection";
import type { ShareSubject } from "@opsbench/core";
import { fmtTime } from "@/lib/format";
import { EmptyState } from "@/components/empty-state";
import { tableHead } from "@/components/panel";

export interface ShareListItem {
  id: string;
  kind: string;
  title: string | null;
  subject: ShareSubject;
  createdAt: string;
  revokedAt: string | null;
}

function SubjectLink({ kind, s }: { kind: string; s: ShareSubject }) {
  if (kind === "run" && s.runIds?.[0])
    return (
      <Link className="font-mono text-blue-600 hover:underline" href={`/runs/${s.runIds[0]}`}>
        run {s.runIds[0].slice(0, 8)}
      </Link>
    );
  if (s.studyId)
    return (
      <Link className="font-mono text-blue-600 hover:underline" href={`/compare?${selectionToQuery({ studyId: s.studyId })}`}>
        study {s.studyId.slice(0, 8)}
      </Link>
    );
  if (s.groups) {
    const runs = s.groups.reduce((n, g) => n + g.runIds.length, 0);
    return (
      <Link className="text-blue-600 hover:underline" href={`/compare?${selectionToQuery({ groups: s.groups })}`}>
        {s.groups.length} group{s.groups.length === 1 ? "" : "s"}, {runs} run{runs === 1 ? "" : "s"}
      </Link>
    );
  }
  return <span className="text-zinc-400">—</span>;
}

export function ShareList({ initial }: { initial: ShareListItem[] }) {
  const [items, setItems] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const revoke = async (id: string) => {
    setError(null);
    const res = await fetch(`/api/v1/shares/${id}`, { method: "DELETE" });
    if (!res.ok) {
      setError(`revoking failed: HTTP ${res.status}`);
      return;
    }
    setItems((xs) => xs.map((x) => (x.id === id ? { ...x, revokedAt: new Date().toISOString() } : x)));
  };
  if (items.length === 0)
    return (
      <EmptyState testId="shares-empty" links={[{ href: "/compare", label: "Compare" }]}>
        No links yet. A share link shows a run or a comparison to anyone with the address, read-only; make one with “Share…” on a run page
        or a comparison.
      </EmptyState>
    );
  return (
    <>
      {error && <p className="px-3 py-1 text-xs text-red-600">{error}</p>}
      <table data-testid="share-list" className="w-full text-xs">
        <thead className="border-b border-zinc-200 bg-zinc-50">
          <tr>
            <th className={tableHead}>Created (UTC)</th>
            <th className={tableHead}>Kind</th>
            <th className={tableHead}>Shows</th>
            <th className={tableHead}>Title</th>
            <th className={tableHead}>State</th>
            <th className={tableHead} />
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {items.map((l) => (
            <tr key={l.id} data-testid="share-row" data-share-id={l.id} className={l.revokedAt ? "text-zinc-400" : undefined}>
              <td className="px-3 py-1.5 font-mono">{fmtTime(l.createdAt)}</td>
              <td className="px-3 py-1.5">{l.kind}</td>
              <td className="px-3 py-1.5">
                <SubjectLink kind={l.kind} s={l.subject} />
              </td>
              <td className="px-3 py-1.5">{l.title ?? ""}</td>
              <td className="px-3 py-1.5">
                {l.revokedAt ? `revoked ${fmtTime(l.revokedAt)}` : <span className="text-emerald-700">live</span>}
              </td>
              <td className="px-3 py-1.5 text-right">
                {!l.revokedAt && (
                  <button
                    type="button"
                    data-testid="share-revoke"
                    onClick={() => void revoke(l.id)}
                    className="rounded border border-zinc-300 px-2 py-0.5 text-xs hover:border-red-400 hover:text-red-700"
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
