import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { RoleProvider } from "@/components/auth/role-gate";
import { AppChrome } from "@/features/share/share-chrome";
import { currentMember } from "@/lib/server/workspace";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "opsbench", template: "%s · opsbench" },
  description: "Benchmark deployments with k6",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const member = await currentMember();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <AppChrome>
          <nav className="border-b border-zinc-200 bg-white print:hidden">
            <div className="mx-auto flex h-11 max-w-7xl items-center gap-6 px-4">
              <Link href="/" className="font-mono text-sm font-semibold tracking-tight">
                opsbench
              </Link>
              <Link href="/" className="text-xs text-zinc-600 hover:text-zinc-900">
                Runs
              </Link>
              <Link href="/studies" className="text-xs text-zinc-600 hover:text-zinc-900">
                Studies
              </Link>
              <Link href="/workloads" className="text-xs text-zinc-600 hover:text-zinc-900">
                Workloads
              </Link>
              <Link href="/targets" className="text-xs text-zinc-600 hover:text-zinc-900">
                Targets
              </Link>
              <Link href="/compare" className="text-xs text-zinc-600 hover:text-zinc-900">
                Compare
              </Link>
              <Link href="/audit" className="ml-auto text-xs text-zinc-600 hover:text-zinc-900">
                Audit log
              </Link>
              <Link href="/api-docs" className="text-xs text-zinc-600 hover:text-zinc-900">
                API
              </Link>
              {member ? (
                <Link href="/settings" data-testid="nav-settings" className="text-xs text-zinc-600 hover:text-zinc-900">
                  {member.email}
                  {member.role ? ` · ${member.role}` : ""}
                </Link>
              ) : (
                <Link href="/sign-in" className="text-xs text-zinc-600 hover:text-zinc-900">
                  Sign in
                </Link>
              )}
            </div>
          </nav>
        </AppChrome>
        <main className="mx-auto max-w-7xl px-4 py-5">
          <RoleProvider role={member?.role ?? null}>{children}</RoleProvider>
        </main>
      </body>
    </html>
  );
}
