"use client";

// A new script secret: its name (the __ENV key) and value. The value is write-only: it is never shown again.
import { useActionState } from "react";
import type { ActionResult } from "@/features/settings/actions";
import { inputClass } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";

export function NewScriptSecretForm({ action }: { action: (prev: ActionResult, form: FormData) => Promise<ActionResult> }) {
  const [state, submit, busy] = useActionState(action, {});
  return (
    <form action={submit} className="flex flex-wrap items-start gap-2 p-3" data-testid="new-secret-form">
      <input name="name" required aria-label="Name" placeholder="Name, e.g. API_TOKEN" className={`${inputClass} max-w-xs font-mono`} />
      <input
        name="value"
        type="password"
        required
        aria-label="Value"
        autoComplete="new-password"
        placeholder="Value (never shown again)"
        className={`${inputClass} max-w-sm`}
      />
      <button type="submit" disabled={busy} className={buttonPrimary}>
        {busy ? "Saving..." : "Save"}
      </button>
      {state.error && (
        <p role="alert" className="basis-full text-xs text-red-600">
          {state.error}
        </p>
      )}
      {state.value && <p className="basis-full text-xs text-zinc-700">{state.value}</p>}
    </form>
  );
}
