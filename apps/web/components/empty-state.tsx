import type { WorkspaceRole } from "@opsbench/core";
import Link from "next/link";
import type { ReactNode } from "react";
import { RoleGate } from "@/components/auth/role-gate";

/** What an empty list would hold and how to fill it: a sentence and the links that do it (a creating one only for members who may). */
export function EmptyState({
  children,
  links = [],
  testId,
}: {
  children: ReactNode;
  links?: Array<{ href: string; label: string; atLeast?: WorkspaceRole }>;
  testId?: string;
}) {
  return (
    <div data-testid={testId ?? "empty-state"} className="space-y-1 px-3 py-2 text-xs text-zinc-500">
      <p>{children}</p>
      {links.length > 0 && (
        <p className="flex flex-wrap gap-3">
          {links.map((l) => {
            const link = (
              <Link key={l.href} href={l.href} className="text-blue-600 hover:underline">
                {l.label}
              </Link>
            );
            return l.atLeast ? (
              <RoleGate key={l.href} atLeast={l.atLeast}>
                {link}
              </RoleGate>
            ) : (
              link
            );
          })}
        </p>
      )}
    </div>
  );
}

/** How to run the demo study from a terminal, for empty pages that point to it. */
export const DemoCommand = () => <code className="rounded bg-zinc-100 px-1 font-mono text-2xs text-zinc-700">npm run demo</code>;
