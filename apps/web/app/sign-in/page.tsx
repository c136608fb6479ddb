import type { Metadata } from "next";
import Link from "next/link";
import { CredentialsForm } from "@/components/auth/credentials-form";
import { Panel } from "@/components/panel";

export const metadata: Metadata = { title: "Sign in" };

type Props = { searchParams: Promise<{ invitation?: string }> };

export default async function SignInPage({ searchParams }: Props) {
  const { invitation } = await searchParams;
  return (
    <div className="mx-auto max-w-sm">
      <Panel title="Sign in to opsbench">
        <div className="space-y-3 p-3">
          <CredentialsForm mode="sign-in" invitationId={invitation} />
          <p className="text-xs text-zinc-500">
            No account yet?{" "}
            <Link className="text-blue-600 hover:underline" href={invitation ? `/sign-up?invitation=${invitation}` : "/sign-up"}>
              Create one
            </Link>
          </p>
        </div>
      </Panel>
    </div>
  );
}
