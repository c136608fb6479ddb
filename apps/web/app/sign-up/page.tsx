import type { Metadata } from "next";
import Link from "next/link";
import { CredentialsForm } from "@/components/auth/credentials-form";
import { Panel } from "@/components/panel";
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
    <div className="mx-auto max-w-sm">
      <Panel title={first ? "Create the first account (it becomes the instance admin)" : "Create an account"}>
        <div className="space-y-3 p-3">
          {closed ? (
            <p data-testid="sign-up-closed" className="text-xs text-zinc-600">
              Sign-up is closed on this server. Ask a workspace owner for an invitation link.
            </p>
          ) : (
            <CredentialsForm mode="sign-up" invitationId={invitation} />
          )}
          <p className="text-xs text-zinc-500">
            Have an account?{" "}
            <Link className="text-blue-600 hover:underline" href={invitation ? `/sign-in?invitation=${invitation}` : "/sign-in"}>
              Sign in
            </Link>
          </p>
        </div>
      </Panel>
    </div>
  );
}
