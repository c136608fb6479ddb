import { OIDC_PROVIDER_ID } from "@opsbench/db";
import type { Metadata } from "next";
import { CredentialsForm } from "@/components/auth/credentials-form";
import { CredentialsPage } from "@/components/auth/credentials-page";
import { SsoButton } from "@/components/auth/sso-button";
import { oidcSettings } from "@/lib/env";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

type Props = { searchParams: Promise<{ invitation?: string; error?: string }> };

export default async function SignInPage({ searchParams }: Props) {
  const { invitation, error } = await searchParams;
  return (
    <CredentialsPage
      title="Sign in to opsbench"
      invitation={invitation}
      otherPage={{ path: "/sign-up", question: "No account yet?", label: "Create one" }}
    >
      {error && (
        <p role="alert" data-testid="sign-in-refused" className="text-xs text-red-600">
          The identity provider&apos;s sign-in did not go through ({error.replaceAll("_", " ")}).
        </p>
      )}
      {oidcSettings && <SsoButton providerId={OIDC_PROVIDER_ID} name={oidcSettings.name} />}
      <CredentialsForm mode="sign-in" invitationId={invitation} />
    </CredentialsPage>
  );
}
