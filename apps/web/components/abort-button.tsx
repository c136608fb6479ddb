"use client";

import { useState } from "react";
import { buttonSecondary } from "./panel";
import { useInBrowser } from "./use-in-browser";

/**
 * A red button that asks first, then POSTs to an abort endpoint (a run's or a study's), or DELETEs (DeleteButton),
 * and shows its refusal, if any.
 */
export function AbortButton({
  url,
  confirmText,
  label,
  testId,
  onAborted,
  method = "POST",
  busyLabel = "Aborting…",
}: {
  url: string;
  confirmText: string;
  label: string;
  testId: string;
  onAborted: () => void;
  method?: "POST" | "DELETE";
  busyLabel?: string;
}) {
  const inBrowser = useInBrowser();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function abort() {
    if (!window.confirm(confirmText)) return;
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(url, { method });
      if (!res.ok)
        throw new Error(
          ((await res.json().catch(() => null)) as { error?: { message?: string } } | null)?.error?.message ?? `HTTP ${res.status}`,
        );
      onAborted();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <span className="inline-flex items-center gap-2">
      {error && <span className="text-xs text-red-600">{error}</span>}
      <button
        type="button"
        data-testid={testId}
        onClick={abort}
        disabled={busy || !inBrowser}
        className={`${buttonSecondary} border-red-300 text-red-700 hover:bg-red-50`}
      >
        {busy ? busyLabel : label}
      </button>
    </span>
  );
}
