"use client";

// Sign-in and sign-up: a plain form posting to Better Auth's endpoints. A sign-up through the setup link carries
// its secret (the first account); one through an invitation link carries the invitation's secret, and after the
// sign-up (or sign-in) the invitation is accepted with it, so the member lands in the workspace that invited them.
import { useState } from "react";
import { buttonPrimary } from "@/components/panel";
import { FormField, inputClass } from "@/components/form-field";

/** The invitation a form signs up or in for: its id (not secret) and its link's secret. */
export interface InvitationLink {
  id: string;
  secret: string;
}

async function postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<string | null> {
  const res = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  if (res.ok) return null;
  const answer: { message?: string } = await res.json().catch(() => ({}));
  return answer.message ?? `HTTP ${res.status}`;
}

/** The submit button's words, and what it says while the request is out. */
const SUBMIT_LABEL = {
  "sign-in": { idle: "Sign in", busy: "Signing in…" },
  "sign-up": { idle: "Create account", busy: "Creating the account…" },
} as const;

export function CredentialsForm({
  mode,
  invitation,
  setupToken,
  email: givenEmail,
}: {
  mode: "sign-in" | "sign-up";
  invitation?: InvitationLink;
  setupToken?: string;
  /** The invited address, filled in. */
  email?: string;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (form: FormData) => {
    setBusy(true);
    setError(null);
    const email = String(form.get("email") ?? "");
    const password = String(form.get("password") ?? "");
    const linkHeaders: Record<string, string> = {
      ...(setupToken ? { "x-opsbench-setup": setupToken } : {}),
      ...(invitation ? { "x-opsbench-invitation": invitation.secret } : {}),
    };
    const failed =
      mode === "sign-up"
        ? await postJson("/api/auth/sign-up/email", { email, password, name: String(form.get("name") ?? "") || email }, linkHeaders)
        : await postJson("/api/auth/sign-in/email", { email, password });
    const notAccepted =
      !failed && invitation
        ? await postJson("/api/auth/organization/accept-invitation", { invitationId: invitation.id, secret: invitation.secret })
        : null;
    setBusy(false);
    if (failed || notAccepted) setError(failed ?? `the invitation could not be accepted: ${notAccepted}`);
    else window.location.assign("/");
  };
  return (
    <form action={submit} className="space-y-3" data-testid={`${mode}-form`}>
      {mode === "sign-up" && (
        <FormField label="Name" path="name" errors={[]} hint="optional: your email when left empty">
          <input name="name" className={inputClass} autoComplete="name" />
        </FormField>
      )}
      <FormField label="Email" path="email" errors={[]}>
        <input name="email" type="email" required defaultValue={givenEmail} className={inputClass} autoComplete="email" />
      </FormField>
      <FormField label="Password" path="password" errors={[]} hint={mode === "sign-up" ? "10 characters or more" : undefined}>
        <input
          name="password"
          type="password"
          required
          minLength={10}
          className={inputClass}
          autoComplete={mode === "sign-up" ? "new-password" : "current-password"}
        />
      </FormField>
      {error && (
        <p role="alert" data-testid="auth-error" className="text-xs text-red-600">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy} className={buttonPrimary}>
        {SUBMIT_LABEL[mode][busy ? "busy" : "idle"]}
      </button>
    </form>
  );
}
