"use client";

// Sign-in through the team's identity provider (OIDC): Better Auth answers with the provider's authorization URL,
// the browser goes there and comes back signed in (an account is made on the first visit, if sign-up allows).
import { useState } from "react";
import { buttonSecondary } from "@/components/panel";

export function SsoButton({ providerId, name }: { providerId: string; name: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    setError(null);
    const res = await fetch("/api/auth/sign-in/social", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ provider: providerId, callbackURL: "/", errorCallbackURL: "/sign-in" }),
    });
    const answer: { url?: string; message?: string } = await res.json().catch(() => ({}));
    if (res.ok && answer.url) window.location.assign(answer.url);
    else {
      setBusy(false);
      setError(answer.message ?? `HTTP ${res.status}`);
    }
  };
  return (
    <div className="space-y-1">
      <button
        type="button"
        data-testid="sso-sign-in"
        disabled={busy}
        onClick={() => void start()}
        className={`${buttonSecondary} w-full justify-center`}
      >
        Sign in with {name}
      </button>
      {error && (
        <p role="alert" data-testid="sso-error" className="text-xs text-red-600">
          {error}
        </p>
      )}
      <p className="pt-1 text-center text-2xs text-zinc-500">or with email and password</p>
    </div>
  );
}
