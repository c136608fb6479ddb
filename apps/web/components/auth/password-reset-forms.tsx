"use client";

// A forgotten password: the address to mail a reset link to (Better Auth's request-password-reset; the answer is the
// same whether an account has the address or not, so the page tells nobody who has an account), and the new password
// set with the link's token (Better Auth's reset-password; a used or expired token is refused).
import Link from "next/link";
import { useState } from "react";
import { FormField, inputClass } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";

async function postJson(path: string, body: unknown): Promise<string | null> {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (res.ok) return null;
  const answer: { message?: string } = await res.json().catch(() => ({}));
  return answer.message ?? `HTTP ${res.status}`;
}

export function ForgotPasswordForm() {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (form: FormData) => {
    setBusy(true);
    setError(null);
    const email = String(form.get("email") ?? "").trim();
    const failed = await postJson("/api/auth/request-password-reset", { email, redirectTo: "/reset-password" });
    setBusy(false);
    if (failed) setError(failed);
    else setSentTo(email);
  };
  if (sentTo)
    return (
      <p className="text-xs text-zinc-700" data-testid="reset-requested">
        If {sentTo} has an account here, a link to choose a new password is on its way. It works once, for an hour.
      </p>
    );
  return (
    <form action={submit} className="space-y-3" data-testid="forgot-password-form">
      <FormField label="Email" path="email" errors={[]}>
        <input name="email" type="email" required autoComplete="email" className={inputClass} />
      </FormField>
      {error && (
        <p role="alert" className="text-xs text-red-600" data-testid="reset-error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy} className={buttonPrimary}>
        {busy ? "Sending…" : "Mail me a reset link"}
      </button>
    </form>
  );
}

export function ResetPasswordForm({ token }: { token: string }) {
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (form: FormData) => {
    setBusy(true);
    setError(null);
    const newPassword = String(form.get("password") ?? "");
    if (newPassword !== String(form.get("again") ?? "")) {
      setBusy(false);
      setError("the two passwords differ");
      return;
    }
    const failed = await postJson("/api/auth/reset-password", { newPassword, token });
    setBusy(false);
    if (failed)
      setError(/token/i.test(failed) ? "This reset link is not valid any more (used, expired, or mistyped): ask for a new one." : failed);
    else setDone(true);
  };
  if (done)
    return (
      <p className="text-xs text-zinc-700" data-testid="reset-done">
        Your password is changed.{" "}
        <Link className="text-blue-600 hover:underline" href="/sign-in">
          Sign in
        </Link>{" "}
        with it.
      </p>
    );
  return (
    <form action={submit} className="space-y-3" data-testid="reset-password-form">
      <FormField label="New password (at least 10 characters)" path="password" errors={[]}>
        <input name="password" type="password" required minLength={10} autoComplete="new-password" className={inputClass} />
      </FormField>
      <FormField label="The same again" path="again" errors={[]}>
        <input name="again" type="password" required minLength={10} autoComplete="new-password" className={inputClass} />
      </FormField>
      {error && (
        <p role="alert" className="text-xs text-red-600" data-testid="reset-error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy} className={buttonPrimary}>
        {busy ? "Saving…" : "Set the new password"}
      </button>
    </form>
  );
}
