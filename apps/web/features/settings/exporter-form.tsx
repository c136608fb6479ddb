"use client";

// The settings page's new-exporter form: kind, URL and the receiver's credential (a bearer token, or basic auth's
// username and password: the password write-only).
import { useActionState, useState } from "react";
import type { ActionResult } from "@/features/settings/actions";
import { inputClass } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";

type Action = (prev: ActionResult, form: FormData) => Promise<ActionResult>;

export function NewExporterForm({ action }: { action: Action }) {
  const [state, submit, busy] = useActionState(action, {});
  const [auth, setAuth] = useState("none");
  return (
    <form action={submit} className="space-y-2 p-3" data-testid="new-exporter-form">
      <div className="flex flex-wrap gap-2">
        <input name="name" required aria-label="Exporter name" placeholder="grafana-cloud" className={`${inputClass} max-w-40`} />
        <select name="kind" aria-label="Protocol" defaultValue="prometheus-remote-write" className={`${inputClass} max-w-72 shrink-0`}>
          <option value="prometheus-remote-write">Prometheus remote write</option>
          <option value="otlp-http">OTLP over HTTP</option>
        </select>
        <input
          name="url"
          type="url"
          required
          aria-label="Receiver URL"
          placeholder="https://prometheus.example.com/api/v1/write"
          className={`${inputClass} max-w-md`}
        />
      </div>
      <div className="flex flex-wrap gap-2">
        <select
          name="auth"
          aria-label="Authentication"
          value={auth}
          onChange={(e) => setAuth(e.target.value)}
          className={`${inputClass} max-w-52 shrink-0`}
        >
          <option value="none">No authentication</option>
          <option value="bearer">Bearer token</option>
          <option value="basic">Basic auth</option>
        </select>
        {auth === "basic" && <input name="username" aria-label="Username" placeholder="username" className={`${inputClass} max-w-40`} />}
        {auth !== "none" && (
          <input
            name="secret"
            type="password"
            autoComplete="off"
            aria-label={auth === "bearer" ? "Token" : "Password"}
            placeholder={auth === "bearer" ? "token" : "password"}
            className={`${inputClass} max-w-56`}
          />
        )}
        <button type="submit" disabled={busy} className={buttonPrimary}>
          {busy ? "Saving..." : "Add exporter"}
        </button>
      </div>
      {state.error ? (
        <p role="alert" className="text-xs text-red-700" data-testid="new-exporter-error">
          {state.error}
        </p>
      ) : state.value ? (
        <p className="text-xs text-zinc-700" data-testid="new-exporter-result">
          {state.value}
        </p>
      ) : null}
    </form>
  );
}
