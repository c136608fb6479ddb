"use client";

// Starts the demo study (DevOps vs NoOps in miniature, core's studies/demo-study.ts) as any
// study is started, through POST /api/v1/studies, and opens its page. A worker
// must be running to take it, as for every study.
import { demoStudy } from "@opsbench/core";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { buttonPrimary } from "@/components/panel";

export function RunDemoStudyButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/api/v1/studies", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(demoStudy()),
      });
      const body: { id?: string; error?: { message?: string } } = await res.json();
      if (!res.ok || !body.id) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
      router.push(`/studies/${body.id}`);
    } catch (err) {
      setError(`could not start the demo study: ${(err as Error).message}`);
      setBusy(false);
    }
  };
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <button type="button" data-testid="run-demo-study" className={buttonPrimary} disabled={busy} onClick={() => void start()}>
        {busy ? "Starting…" : "Run the demo study"}
      </button>
      {error && (
        <span data-testid="run-demo-study-error" className="text-xs text-red-700">
          {error}
        </span>
      )}
    </span>
  );
}
