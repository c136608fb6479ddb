"use client";

// The settings page's notification forms: a new webhook (its signing secret shown once, after it is saved), the
// workspace's SMTP settings (the password write-only), and an endpoint's "Send test" button.
import { NOTIFICATION_EVENT_LABELS, NOTIFICATION_EVENTS, type NotificationEventType } from "@opsbench/core";
import { useActionState } from "react";
import type { ActionResult } from "@/features/settings/actions";
import { inputClass } from "@/components/form-field";
import { buttonPrimary, buttonSecondary } from "@/components/panel";

type Action = (prev: ActionResult, form: FormData) => Promise<ActionResult>;

function EventBoxes({ idPrefix, checked }: { idPrefix: string; checked: readonly NotificationEventType[] }) {
  return (
    <fieldset className="flex flex-wrap items-center gap-3 text-xs text-zinc-700">
      <legend className="sr-only">Events</legend>
      {NOTIFICATION_EVENTS.map((e) => (
        <label key={e} className="flex items-center gap-1" htmlFor={`${idPrefix}-${e}`}>
          <input type="checkbox" id={`${idPrefix}-${e}`} name={`event:${e}`} defaultChecked={checked.includes(e)} />
          {NOTIFICATION_EVENT_LABELS[e]}
        </label>
      ))}
    </fieldset>
  );
}

function Outcome({ state, testId }: { state: ActionResult; testId: string }) {
  if (state.error)
    return (
      <p role="alert" className="text-xs text-red-700" data-testid={`${testId}-error`}>
        {state.error}
      </p>
    );
  return state.value ? (
    <p className="text-xs text-zinc-700" data-testid={`${testId}-result`}>
      {state.value}
    </p>
  ) : null;
}

export function NewWebhookForm({ action }: { action: Action }) {
  const [state, submit, busy] = useActionState(action, {});
  return (
    <form action={submit} className="space-y-2 p-3" data-testid="new-webhook-form">
      <div className="flex flex-wrap gap-2">
        <input
          name="url"
          type="url"
          required
          aria-label="Webhook URL"
          placeholder="https://hooks.example.com/opsbench"
          className={`${inputClass} max-w-md`}
        />
        <select name="format" aria-label="Format" defaultValue="json" className={`${inputClass} max-w-56`}>
          <option value="json">JSON (signed)</option>
          <option value="slack">Slack incoming webhook</option>
        </select>
        <button type="submit" disabled={busy} className={buttonPrimary}>
          {busy ? "Saving..." : "Add webhook"}
        </button>
      </div>
      <EventBoxes idPrefix="new-webhook" checked={["run.failed", "gate.tripped"]} />
      {state.value ? (
        <p className="text-xs text-zinc-700" data-testid="webhook-secret">
          Saved. Its signing secret, shown this once (verify X-Opsbench-Signature with it):{" "}
          <code className="select-all rounded bg-zinc-100 px-1 font-mono">{state.value}</code>
        </p>
      ) : (
        <Outcome state={state} testId="new-webhook" />
      )}
    </form>
  );
}

export function SendTestButton({ action, id }: { action: Action; id: string }) {
  const [state, submit, busy] = useActionState(action, {});
  return (
    <form action={submit} className="flex items-center gap-2">
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={busy} className={buttonSecondary} data-testid="webhook-send-test">
        {busy ? "Queuing..." : "Send test"}
      </button>
      <Outcome state={state} testId="webhook-test" />
    </form>
  );
}

export interface SmtpFormValues {
  host: string;
  port: number;
  security: string;
  from: string;
  to: string[];
  username: string | null;
  hasPassword: boolean;
  events: NotificationEventType[];
  enabled: boolean;
}

export function SmtpForm({ action, current }: { action: Action; current: SmtpFormValues | null }) {
  const [state, submit, busy] = useActionState(action, {});
  const field = "block text-2xs font-medium text-zinc-700";
  return (
    <form action={submit} className="space-y-2 p-3" data-testid="smtp-form">
      <div className="grid grid-cols-2 gap-2 md:grid-cols-4">
        <label className={field}>
          SMTP host
          <input name="host" required defaultValue={current?.host ?? ""} placeholder="smtp.example.com" className={inputClass} />
        </label>
        <label className={field}>
          Port
          <input name="port" type="number" min={1} max={65535} defaultValue={current?.port ?? 587} className={inputClass} />
        </label>
        <label className={field}>
          Security
          <select name="security" defaultValue={current?.security ?? "starttls"} className={inputClass}>
            <option value="starttls">STARTTLS (587)</option>
            <option value="tls">TLS (465)</option>
            <option value="none">none (a relay the admin allows)</option>
          </select>
        </label>
        <label className={field}>
          From
          <input
            name="from"
            type="email"
            required
            defaultValue={current?.from ?? ""}
            placeholder="opsbench@example.com"
            className={inputClass}
          />
        </label>
        <label className={`${field} col-span-2`}>
          To (comma-separated)
          <input name="to" required defaultValue={current?.to.join(", ") ?? ""} placeholder="oncall@example.com" className={inputClass} />
        </label>
        <label className={field}>
          Username
          <input name="username" defaultValue={current?.username ?? ""} autoComplete="off" className={inputClass} />
        </label>
        <label className={field}>
          Password
          <input
            name="password"
            type="password"
            autoComplete="new-password"
            placeholder={current?.hasPassword ? "(stored: leave empty to keep)" : ""}
            className={inputClass}
          />
        </label>
      </div>
      <EventBoxes idPrefix="smtp" checked={current?.events ?? ["run.failed", "gate.tripped"]} />
      <label className="flex items-center gap-2 text-xs text-zinc-700">
        <input type="checkbox" name="enabled" defaultChecked={current?.enabled ?? true} />
        Send e-mail
      </label>
      <button type="submit" disabled={busy} className={buttonPrimary}>
        {busy ? "Saving..." : "Save e-mail settings"}
      </button>
      <Outcome state={state} testId="smtp" />
    </form>
  );
}
