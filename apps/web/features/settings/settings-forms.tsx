"use client";

// The settings page's two forms whose answer is shown once: a new token's key and an invitation's link.
import { useActionState } from "react";
import type { ActionResult } from "@/features/settings/actions";
import { inputClass } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";

type Action = (prev: ActionResult, form: FormData) => Promise<ActionResult>;

function Answer({ state, testId, label }: { state: ActionResult; testId: string; label: string }) {
  if (state.error)
    return (
      <p role="alert" className="text-xs text-red-600">
        {state.error}
      </p>
    );
  if (!state.value) return null;
  const shown = state.value.startsWith("/") ? `${window.location.origin}${state.value}` : state.value;
  return (
    <p className="text-xs text-zinc-700">
      {label}{" "}
      <code data-testid={testId} className="select-all break-all rounded bg-zinc-100 px-1 font-mono">
        {shown}
      </code>
      {state.note && <span data-testid={`${testId}-note`}> ({state.note})</span>}
    </p>
  );
}

/** A new token's lifetime: 90 days unless chosen otherwise; "never" only for owners (the action checks it too). */
export function NewTokenForm({ action, owner }: { action: Action; owner: boolean }) {
  const [state, submit, busy] = useActionState(action, {});
  return (
    <form action={submit} className="space-y-2 p-3" data-testid="new-token-form">
      <div className="flex gap-2">
        <input name="name" placeholder="Token name, e.g. ci" className={`${inputClass} max-w-xs`} />
        <select name="expiresInDays" defaultValue="90" aria-label="Expires" className={`${inputClass} max-w-36`}>
          <option value="7">expires in 7 days</option>
          <option value="30">expires in 30 days</option>
          <option value="90">expires in 90 days</option>
          {owner && <option value="never">never expires</option>}
        </select>
        <button type="submit" disabled={busy} className={buttonPrimary}>
          Create token
        </button>
      </div>
      <Answer state={state} testId="new-token" label="Copy it now, it is not shown again:" />
    </form>
  );
}

export function InviteForm({ action }: { action: Action }) {
  const [state, submit, busy] = useActionState(action, {});
  return (
    <form action={submit} className="space-y-2 p-3" data-testid="invite-form">
      <div className="flex gap-2">
        <input name="email" type="email" required placeholder="Email" className={`${inputClass} max-w-xs`} />
        <select name="role" defaultValue="viewer" aria-label="Role" className={`${inputClass} max-w-28`}>
          <option value="viewer">viewer</option>
          <option value="editor">editor</option>
          <option value="owner">owner</option>
        </select>
        <button type="submit" disabled={busy} className={buttonPrimary}>
          Invite
        </button>
      </div>
      <Answer
        state={state}
        testId="invite-link"
        label="Send them this link (shown once; it works once, for that address only; inviting the address again makes a new one):"
      />
    </form>
  );
}
