import type { Metadata } from "next";
import Link from "next/link";
import { ResetPasswordForm } from "@/components/auth/password-reset-forms";
import { Panel } from "@/components/panel";

export const dynamic = "force-dynamic";
// The token is in the address: no referrer takes it elsewhere.
export const metadata: Metadata = { title: "Reset password", referrer: "no-referrer" };

type Props = { searchParams: Promise<{ token?: string; error?: string }> };

/**
 * Where the mailed link lands (Better Auth's /api/auth/reset-password/<token> sends the browser here with ?token=, or
 * with ?error=INVALID_TOKEN for a used or expired one).
 */
export default async function ResetPasswordPage({ searchParams }: Props) {
  const { token, error } = await searchParams;
  return (
    <div className="mx-auto max-w-sm">
      <Panel title="Choose a new password">
        <div className="space-y-3 p-3">
          {token && !error ? (
            <ResetPasswordForm token={token} />
          ) : (
            <p role="alert" className="text-xs text-red-600" data-testid="reset-link-invalid">
              This reset link is not valid any more: it was used, it expired, or it was mistyped.{" "}
              <Link className="text-blue-600 hover:underline" href="/forgot-password">
                Ask for a new one
              </Link>
              .
            </p>
          )}
        </div>
      </Panel>
    </div>
  );
}
