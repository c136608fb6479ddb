"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/** Starts a run of an existing target and workload, then opens its page. */
export function StartRunForm({ targets, workloads }: { targets: string[]; workloads: string[] }) {
  const router = useRouter();
  const [target, setTarget] = useState(targets[0] ?? "");
  const [workload, setWorkload] = useState(workloads[0] ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const disabled = busy || !target || !workload;

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/api/v1/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ target, workload }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
      router.push(`/runs/${body.id}`);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  }

  const select = "h-7 rounded border border-zinc-300 bg-white px-1.5 font-mono text-xs";
  return (
    <form onSubmit={submit} className="flex flex-wrap items-center gap-2 text-xs">
      <select aria-label="target" className={select} value={target} onChange={(e) => setTarget(e.target.value)}>
        {targets.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <span className="text-zinc-400">×</span>
      <select aria-label="workload" className={select} value={workload} onChange={(e) => setWorkload(e.target.value)}>
        {workloads.map((w) => (
          <option key={w}>{w}</option>
        ))}
      </select>
      <button type="submit" disabled={disabled} className="h-7 rounded bg-zinc-900 px-3 font-medium text-white disabled:opacity-40">
        {busy ? "Starting…" : "Start run"}
      </button>
      {error && <span className="text-red-600">{error}</span>}
    </form>
  );
}
