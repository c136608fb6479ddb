"use client";

// The instance admin's form of the instance's ceilings (settings page): one number per limit.
import { useActionState } from "react";
import type { ActionResult } from "@/features/settings/actions";
import { inputClass } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";

type Action = (prev: ActionResult, form: FormData) => Promise<ActionResult>;

export function CeilingsForm({ action, ceilings }: { action: Action; ceilings: Record<string, number> }) {
  const [state, submit, busy] = useActionState(action, {});
  return (
    <form action={submit} className="space-y-2 p-3" data-testid="ceilings-form">
      <div className="grid grid-cols-1 gap-2 text-xs sm:grid-cols-3">
        {Object.entries(ceilings).map(([name, value]) => (
          <label key={name} className="flex flex-col gap-0.5">
            <span className="font-mono text-zinc-600">{name}</span>
            <input name={name} type="number" min={1} step={1} required defaultValue={value} className={inputClass} />
          </label>
        ))}
      </div>
      <button type="submit" disabled={busy} className={buttonPrimary}>
        Save ceilings
      </button>
      {state.error && (
        <p role="alert" className="text-xs text-red-600">
          {state.error}
        </p>
      )}
      {state.value && (
        <p className="text-xs text-zinc-700" data-testid="ceilings-saved">
          Saved: every workspace&apos;s limits are now at most these.
        </p>
      )}
    </form>
  );
}
