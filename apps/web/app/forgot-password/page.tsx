import type { Metadata } from "next";
import Link from "next/link";
import { ForgotPasswordForm } from "@/components/auth/password-reset-forms";
import { Panel } from "@/components/panel";
import { instanceMail } from "@/lib/server/instance-mail";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Forgot password", referrer: "no-referrer" };

/** Asks for a password-reset link by mail; without the instance's mail (OPSBENCH_SMTP_URL) it says whom to ask instead. */
export default function ForgotPasswordPage() {
  return (
    <div className="mx-auto max-w-sm">
      <Panel title="Forgot your password?">
        <div className="space-y-3 p-3">
          {instanceMail ? (
            <ForgotPasswordForm />
          ) : (
            <p className="text-xs text-zinc-700" data-testid="no-mail">
              This server sends no mail (its admin has not set OPSBENCH_SMTP_URL): ask the admin to set a new password with `opsbench admin`
              on the server.
            </p>
          )}
          <p className="text-xs text-zinc-500">
            <Link className="text-blue-600 hover:underline" href="/sign-in">
              Back to sign-in
            </Link>
          </p>
        </div>
      </Panel>
    </div>
  );
}
