import { loadOpenInvitation, OIDC_PROVIDER_ID } from "@opsbench/db";
import type { Metadata } from "next";
import { CredentialsForm } from "@/components/auth/credentials-form";
import { CredentialsPage } from "@/components/auth/credentials-page";
import { SsoButton } from "@/components/auth/sso-button";
import Link from "next/link";
import { oidcSettings } from "@/lib/env";
import { instanceMail } from "@/lib/server/instance-mail";
import { getDb } from "@/lib/server/singletons";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in", referrer: "no-referrer" };

type Props = { searchParams: Promise<{ invitation?: string; error?: string }> };

export default async function SignInPage({ searchParams }: Props) {
  const { invitation: secret, error } = await searchParams;
  // An invitation link's secret: accepted right after the sign-in.
  const invitation = secret ? await loadOpenInvitation(getDb(), secret) : null;
  return (
    <CredentialsPage
      title="Sign in to opsbench"
      invitation={invitation ? secret : undefined}
      otherPage={{ path: "/sign-up", question: "No account yet?", label: "Create one" }}
    >
      {error && (
        <p role="alert" data-testid="sign-in-refused" className="text-xs text-red-600">
          The identity provider&apos;s sign-in did not go through ({error.replaceAll("_", " ")}).
        </p>
      )}
      {oidcSettings && <SsoButton providerId={OIDC_PROVIDER_ID} name={oidcSettings.name} />}
      {secret && !invitation && (
        <p data-testid="invitation-invalid" className="text-xs text-zinc-600">
          This invitation link is not valid: it was used, withdrawn, expired, or mistyped.
        </p>
      )}
      <CredentialsForm mode="sign-in" invitation={invitation && secret ? { id: invitation.id, secret } : undefined} />
      {instanceMail && (
        <p className="text-xs">
          <Link className="text-blue-600 hover:underline" href="/forgot-password" data-testid="forgot-password">
            Forgot password?
          </Link>
        </p>
      )}
    </CredentialsPage>
  );
}
