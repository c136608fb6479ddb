import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { Panel } from "@/components/panel";
import { currentMember, withScope } from "@/lib/server/workspace";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "No workspace" };

/** Where a signed-in account that belongs to no workspace lands (an account made by open sign-up, or one removed). */
export default async function NoWorkspacePage() {
  const member = await currentMember();
  if (!member) redirect("/sign-in");
  if (withScope(member)) redirect("/");
  return (
    <div className="mx-auto max-w-md">
      <Panel title="You belong to no workspace yet">
        <div className="space-y-2 p-3 text-xs" data-testid="no-workspace">
          <p>
            You are signed in as <strong>{member.email}</strong>, but you are a member of no workspace on this server, so there are no
            targets, workloads or runs to show.
          </p>
          <p>
            Ask a workspace owner for an invitation link to their workspace, and open it while signed in. Accounts never get a workspace of
            their own by signing up.
          </p>
          <p className="flex items-center gap-3">
            <Link className="text-blue-600 hover:underline" href="/settings">
              Settings
            </Link>
            <SignOutButton />
          </p>
        </div>
      </Panel>
    </div>
  );
}
