"use client";

// A schedule row's buttons: pause or resume (POST .../pause, .../resume), and delete after asking. The page is
// refreshed after each, so the state, the next ticks and the outcomes shown are the server's.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { RoleGate } from "@/components/auth/role-gate";
import { buttonSecondary } from "@/components/panel";
import { useInBrowser } from "@/components/use-in-browser";

export function ScheduleActions({ id, name, paused }: { id: string; name: string; paused: boolean }) {
  const router = useRouter();
  const inBrowser = useInBrowser();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function send(url: string, method: "POST" | "DELETE") {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(url, { method });
      if (!res.ok)
        throw new Error(
          ((await res.json().catch(() => null)) as { error?: { message?: string } } | null)?.error?.message ?? `HTTP ${res.status}`,
        );
      router.refresh();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <RoleGate atLeast="editor">
      <span className="inline-flex items-center gap-2 whitespace-nowrap">
        {error && <span className="text-xs text-red-600">{error}</span>}
        <button
          type="button"
          data-testid={paused ? "schedule-resume" : "schedule-pause"}
          className={buttonSecondary}
          disabled={busy || !inBrowser}
          onClick={() => send(`/api/v1/schedules/${id}/${paused ? "resume" : "pause"}`, "POST")}
        >
          {paused ? "Resume" : "Pause"}
        </button>
        <button
          type="button"
          data-testid="schedule-delete"
          className={`${buttonSecondary} border-red-300 text-red-700 hover:bg-red-50`}
          disabled={busy || !inBrowser}
          aria-label={`Delete the schedule ${name}`}
          onClick={() => {
            if (window.confirm(`Delete the schedule "${name}"? The runs and studies it started stay.`))
              void send(`/api/v1/schedules/${id}`, "DELETE");
          }}
        >
          Delete
        </button>
      </span>
    </RoleGate>
  );
}
