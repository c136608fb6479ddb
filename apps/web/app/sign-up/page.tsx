import { loadInstanceSettings, loadOpenInvitation, setupTokenValid } from "@opsbench/db";
import type { Metadata } from "next";
import { CredentialsForm } from "@/components/auth/credentials-form";
import { CredentialsPage } from "@/components/auth/credentials-page";
import { getDb } from "@/lib/server/singletons";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Create account", referrer: "no-referrer" };

type Props = { searchParams: Promise<{ invitation?: string; setup?: string }> };

function Notice({ testId, children }: { testId: string; children: React.ReactNode }) {
  return (
    <p data-testid={testId} className="text-xs text-zinc-600">
      {children}
    </p>
  );
}

/**
 * Who may create an account here: with no account yet, only the holder of the one-time setup link (it becomes the
 * instance admin); after that, the holder of an invitation link, or anyone while the admin keeps sign-up open.
 */
export default async function SignUpPage({ searchParams }: Props) {
  const { invitation: secret, setup } = await searchParams;
  const db = getDb();
  const settings = await loadInstanceSettings(db);
  const first = settings.adminUserId === null;
  const invitation = !first && secret ? await loadOpenInvitation(db, secret) : null;
  let body: React.ReactNode;
  if (first) {
    body = (await setupTokenValid(db, setup)) ? (
      <CredentialsForm mode="sign-up" setupToken={setup} />
    ) : (
      <Notice testId="sign-up-needs-setup">
        This server has no account yet. The first account is made with the one-time setup link the web app printed when it started (its
        log), or one from <code>opsbench admin setup-link</code> on the server.
        {setup ? " This setup link is not valid: it was used, replaced by a newer one, or mistyped." : ""}
      </Notice>
    );
  } else if (secret) {
    body = invitation ? (
      <CredentialsForm mode="sign-up" invitation={{ id: invitation.id, secret: secret }} email={invitation.email} />
    ) : (
      <Notice testId="invitation-invalid">This invitation link is not valid: it was used, withdrawn, expired, or mistyped.</Notice>
    );
  } else if (settings.openSignUp) {
    body = <CredentialsForm mode="sign-up" />;
  } else {
    body = <Notice testId="sign-up-closed">Sign-up is closed on this server. Ask a workspace owner for an invitation link.</Notice>;
  }
  return (
    <CredentialsPage
      title={first ? "Create the first account (it becomes the instance admin)" : "Create an account"}
      invitation={invitation ? secret : undefined}
      otherPage={{ path: "/sign-in", question: "Have an account?", label: "Sign in" }}
    >
      {body}
    </CredentialsPage>
  );
}
