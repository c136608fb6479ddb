"use client";

// Sign-in and sign-up: a plain form posting to Better Auth's endpoints. After a sign-up through an invitation
// link the invitation is accepted at once, so the new member lands in the workspace that invited them.
import { useState } from "react";
import { buttonPrimary } from "@/components/panel";
import { inputClass } from "@/components/form-field";

async function postJson(path: string, body: unknown): Promise<string | null> {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (res.ok) return null;
  const answer: { message?: string } = await res.json().catch(() => ({}));
  return answer.message ?? `HTTP ${res.status}`;
}

export function CredentialsForm({ mode, invitationId }: { mode: "sign-in" | "sign-up"; invitationId?: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (form: FormData) => {
    setBusy(true);
    setError(null);
    const email = String(form.get("email") ?? "");
    const password = String(form.get("password") ?? "");
    const failed =
      mode === "sign-up"
        ? await postJson("/api/auth/sign-up/email", { email, password, name: String(form.get("name") ?? "") || email })
        : await postJson("/api/auth/sign-in/email", { email, password });
    const notAccepted = !failed && invitationId ? await postJson("/api/auth/organization/accept-invitation", { invitationId }) : null;
    setBusy(false);
    if (failed || notAccepted) setError(failed ?? `the invitation could not be accepted: ${notAccepted}`);
    else window.location.assign("/");
  };
  return (
    <form action={submit} className="space-y-2" data-testid={`${mode}-form`}>
      {mode === "sign-up" && <input name="name" placeholder="Name" className={inputClass} autoComplete="name" />}
      <input name="email" type="email" required placeholder="Email" className={inputClass} autoComplete="email" />
      <input
        name="password"
        type="password"
        required
        minLength={10}
        placeholder="Password (10 characters or more)"
        className={inputClass}
        autoComplete={mode === "sign-up" ? "new-password" : "current-password"}
      />
      {error && (
        <p role="alert" data-testid="auth-error" className="text-xs text-red-600">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy} className={buttonPrimary}>
        {mode === "sign-up" ? "Create account" : "Sign in"}
      </button>
    </form>
  );
}
