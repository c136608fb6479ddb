import type { Metadata } from "next";
import type { ReactNode } from "react";
import { AppNav } from "@/components/app-nav";
import { RoleProvider } from "@/components/auth/role-gate";
import { HydrationMark } from "@/components/hydration-mark";
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
          <AppNav member={member ? { email: member.email, role: member.role ?? null } : null} />
        </AppChrome>
        <main id="main" className="mx-auto max-w-page px-4 py-5">
          <RoleProvider role={member?.role ?? null}>{children}</RoleProvider>
        </main>
        <HydrationMark />
      </body>
    </html>
  );
}
