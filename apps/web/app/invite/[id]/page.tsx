import { loadOpenInvitation } from "@opsbench/db";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Panel } from "@/components/panel";
import { getDb } from "@/lib/server/singletons";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Invitation", robots: { index: false, follow: false }, referrer: "no-referrer" };

type Props = { params: Promise<{ id: string }> };

/**
 * An invitation link, `/invite/<secret>`: who is invited where, and the way in (create an account or sign in with
 * that email). The secret goes on to the sign-up or sign-in page, which accepts the invitation with it.
 */
export default async function InvitationPage({ params }: Props) {
  const secret = (await params).id;
  const invitation = await loadOpenInvitation(getDb(), secret);
  if (!invitation) notFound();
  return (
    <div className="mx-auto max-w-sm">
      <Panel title={`Join ${invitation.workspace.name}`}>
        <div className="space-y-2 p-3 text-xs" data-testid="invitation">
          <p>
            {invitation.email} is invited as <strong>{invitation.role}</strong>.
          </p>
          <p className="flex gap-3">
            <Link data-testid="accept-sign-up" className="text-blue-600 hover:underline" href={`/sign-up?invitation=${secret}`}>
              Create an account
            </Link>
            <Link className="text-blue-600 hover:underline" href={`/sign-in?invitation=${secret}`}>
              Sign in
            </Link>
          </p>
        </div>
      </Panel>
    </div>
  );
}
