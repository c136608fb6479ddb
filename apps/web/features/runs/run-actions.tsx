"use client";

// The run page's header actions: repeat the run (a new run of the same target x workload), and the overflow menu
// that holds what is rarely wanted and cannot be undone (Delete), so it is never the first button.
import { useRouter } from "next/navigation";
import { type ReactNode, useState } from "react";
import { buttonSecondary } from "@/components/panel";
import { useInBrowser } from "@/components/use-in-browser";

/** Queues a run of the same target and workload (POST /api/v1/runs), then opens its page. */
export function RepeatRunButton({ target, workload }: { target: string; workload: string }) {
  const router = useRouter();
  const inBrowser = useInBrowser();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function repeat() {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/api/v1/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ target, workload }),
      });
      const body = (await res.json().catch(() => null)) as { id?: string; error?: { message?: string } } | null;
      if (!res.ok || !body?.id) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
      router.push(`/runs/${body.id}`);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  }
  return (
    <span className="inline-flex items-center gap-2">
      {error && (
        <span data-testid="run-repeat-error" className="text-xs text-red-600">
          {error}
        </span>
      )}
      <button
        type="button"
        data-testid="run-repeat"
        className={buttonSecondary}
        onClick={repeat}
        disabled={busy || !inBrowser}
        title={`Queue a new run of ${target} × ${workload}`}
      >
        {busy ? "Queuing…" : "Repeat"}
      </button>
    </span>
  );
}

/** "⋯": a menu of further actions, closed until asked for. */
export function RunMenu({ children }: { children: ReactNode }) {
  return (
    <details data-testid="run-menu" className="relative">
      <summary
        aria-label="More actions"
        title="More actions"
        className={`${buttonSecondary} cursor-pointer list-none px-2 [&::-webkit-details-marker]:hidden`}
      >
        ⋯
      </summary>
      <div className="absolute right-0 z-20 mt-1 flex min-w-40 flex-col items-stretch gap-1 rounded-md border border-zinc-200 bg-white p-2 shadow-lg">
        {children}
      </div>
    </details>
  );
}
