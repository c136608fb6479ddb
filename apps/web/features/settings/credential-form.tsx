"use client";

// A new workspace credential: its name, kind and value. The value is write-only: it is never shown again.
import { useActionState, useState } from "react";
import type { ActionResult } from "@/features/settings/actions";
import { inputClass } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";

const PLACEHOLDER: Record<string, string> = {
  kubernetes: "apiVersion: v1\nkind: Config\nclusters: ... (a service account's token, no exec or file paths)",
  aws: '{ "accessKeyId": "...", "secretAccessKey": "...", "region": "eu-west-1", "roleArn": "(optional)" }',
  gcp: '{ "serviceAccountKey": "<the key file as a string>", "projectId": "...", "region": "europe-west1" }',
};

export function NewCredentialForm({ action }: { action: (prev: ActionResult, form: FormData) => Promise<ActionResult> }) {
  const [state, submit, busy] = useActionState(action, {});
  const [kind, setKind] = useState("kubernetes");
  return (
    <form action={submit} className="space-y-2 p-3" data-testid="new-credential-form">
      <div className="flex gap-2">
        <input name="name" required placeholder="Name, e.g. gke-prod" className={`${inputClass} max-w-xs`} />
        <select name="kind" aria-label="Kind" value={kind} onChange={(e) => setKind(e.target.value)} className={`${inputClass} max-w-36`}>
          <option value="kubernetes">kubernetes</option>
          <option value="aws">aws</option>
          <option value="gcp">gcp</option>
        </select>
        {kind === "kubernetes" && <input name="context" placeholder="Context (default: current)" className={`${inputClass} max-w-xs`} />}
      </div>
      <textarea
        name="value"
        required
        rows={6}
        autoComplete="off"
        spellCheck={false}
        placeholder={PLACEHOLDER[kind]}
        className={`${inputClass} font-mono`}
      />
      <label className="flex items-center gap-2 text-xs text-zinc-700">
        <input type="checkbox" name="editorsMayDeploy" data-testid="credential-editors-may-deploy" />
        Editors may deploy with it (owners always may)
      </label>
      <button type="submit" disabled={busy} className={buttonPrimary}>
        {busy ? "Checking with a worker..." : "Check and save"}
      </button>
      {state.error && (
        <p role="alert" className="text-xs text-red-600">
          {state.error}
        </p>
      )}
      {state.value && <p className="text-xs text-zinc-700">{state.value}</p>}
    </form>
  );
}
