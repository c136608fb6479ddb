"use client";

// The app's navigation bar: the section the page belongs to is marked (aria-current="page" and an underline), and a
// link that was clicked shows a spinner until its page arrives (the server renders most pages on each request).
import Link, { useLinkStatus } from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";

/** A section of the app and the paths that belong to it ("/" is the runs list; a run's page is under /runs). */
interface NavSection {
  href: string;
  label: ReactNode;
  matches: (path: string) => boolean;
  testId?: string;
  className?: string;
}

const under = (prefix: string) => (path: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The section `path` belongs to: the first whose rule matches. */
function activeSection(path: string, sections: readonly Pick<NavSection, "href" | "matches">[]): string | null {
  return sections.find((s) => s.matches(path))?.href ?? null;
}

function PendingSpinner() {
  const { pending } = useLinkStatus();
  if (!pending) return null;
  return (
    <span
      aria-hidden="true"
      data-testid="nav-pending"
      className="ml-1 inline-block size-3 animate-spin rounded-full border-2 border-zinc-300 border-t-zinc-700 align-[-2px]"
    />
  );
}

function NavLink({ section, active }: { section: NavSection; active: boolean }) {
  return (
    <Link
      href={section.href}
      data-testid={section.testId}
      aria-current={active ? "page" : undefined}
      className={`inline-flex h-11 items-center border-b-2 text-xs ${
        active ? "border-zinc-900 font-medium text-zinc-900" : "border-transparent text-zinc-600 hover:text-zinc-900"
      } ${section.className ?? ""}`}
    >
      {section.label}
      <PendingSpinner />
    </Link>
  );
}

export function AppNav({ member }: { member: { email: string; role: string | null } | null }) {
  const path = usePathname() ?? "/";
  const sections: NavSection[] = [
    { href: "/", label: "Runs", matches: (p) => p === "/" || under("/runs")(p) },
    { href: "/studies", label: "Studies", matches: under("/studies") },
    { href: "/schedules", label: "Schedules", matches: under("/schedules") },
    { href: "/workloads", label: "Workloads", matches: under("/workloads") },
    { href: "/targets", label: "Targets", matches: under("/targets") },
    { href: "/compare", label: "Compare", matches: under("/compare") },
    { href: "/series", label: "Trends", matches: under("/series") },
    { href: "/audit", label: "Audit log", matches: under("/audit"), className: "ml-auto" },
    { href: "/api-docs", label: "API", matches: under("/api-docs") },
    member
      ? {
          href: "/settings",
          label: member.role ? `${member.email} · ${member.role}` : member.email,
          matches: under("/settings"),
          testId: "nav-settings",
        }
      : { href: "/sign-in", label: "Sign in", matches: under("/sign-in") },
  ];
  const active = activeSection(path, sections);
  return (
    <nav aria-label="Main" className="border-b border-zinc-200 bg-white print:hidden">
      <div className="mx-auto flex h-11 max-w-page items-center gap-5 px-4">
        <Link href="/" className="mr-1 font-mono text-sm font-semibold tracking-tight">
          opsbench
        </Link>
        {sections.map((s) => (
          <NavLink key={s.href} section={s} active={active === s.href} />
        ))}
      </div>
    </nav>
  );
}
