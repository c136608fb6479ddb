import type { Metadata } from "next";
import { CredentialsForm } from "@/components/auth/credentials-form";
import { CredentialsPage } from "@/components/auth/credentials-page";

export const metadata: Metadata = { title: "Sign in" };

type Props = { searchParams: Promise<{ invitation?: string }> };

export default async function SignInPage({ searchParams }: Props) {
  const { invitation } = await searchParams;
  return (
    <CredentialsPage
      title="Sign in to opsbench"
      invitation={invitation}
      otherPage={{ path: "/sign-up", question: "No account yet?", label: "Create one" }}
    >
      <CredentialsForm mode="sign-in" invitationId={invitation} />
    </CredentialsPage>
  );
}
