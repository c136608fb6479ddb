"use client";

import { useState } from "react";
import { buttonSecondary } from "@/components/panel";
import { useInBrowser } from "@/components/use-in-browser";

/** Marks the run as its target and workload's baseline (POST /api/v1/runs/{id}/baseline), what `opsbench compare` gates on. */
export function BaselineButton({ runId, isBaseline }: { runId: string; isBaseline: boolean }) {
  const inBrowser = useInBrowser();
  const [marked, setMarked] = useState(isBaseline);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function mark() {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(`/api/v1/runs/${runId}/baseline`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      if (!res.ok)
        throw new Error(
          ((await res.json().catch(() => null)) as { error?: { message?: string } } | null)?.error?.message ?? `HTTP ${res.status}`,
        );
      setMarked(true);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="mt-4 flex items-center gap-3 text-sm" data-testid="baseline">
      {marked ? (
        <span className="text-zinc-600">This run is the baseline for its target and workload.</span>
      ) : (
        <button type="button" className={buttonSecondary} onClick={mark} disabled={busy || !inBrowser} data-testid="mark-baseline">
          {busy ? "Marking…" : "Mark as baseline"}
        </button>
      )}
      {error && <span className="text-xs text-red-600">{error}</span>}
    </div>
  );
}
