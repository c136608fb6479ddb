import type { Metadata } from "next";
import { CredentialsForm } from "@/components/auth/credentials-form";
import { CredentialsPage } from "@/components/auth/credentials-page";
import { getDb } from "@/lib/server/singletons";
import { loadInstanceSettings } from "@opsbench/db";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Create account" };

type Props = { searchParams: Promise<{ invitation?: string }> };

export default async function SignUpPage({ searchParams }: Props) {
  const { invitation } = await searchParams;
  const settings = await loadInstanceSettings(getDb());
  const first = settings.adminUserId === null;
  const closed = !first && !settings.openSignUp && !invitation;
  return (
    <CredentialsPage
      title={first ? "Create the first account (it becomes the instance admin)" : "Create an account"}
      invitation={invitation}
      otherPage={{ path: "/sign-in", question: "Have an account?", label: "Sign in" }}
    >
      {closed ? (
        <p data-testid="sign-up-closed" className="text-xs text-zinc-600">
          Sign-up is closed on this server. Ask a workspace owner for an invitation link.
        </p>
      ) : (
        <CredentialsForm mode="sign-up" invitationId={invitation} />
      )}
    </CredentialsPage>
  );
}
