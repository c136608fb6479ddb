// The frames the targets and workloads share: their "New" link (editors and owners only), their
// list page (header, "saved" notice, the list or what would fill it) and their "New" page.
import Link from "next/link";
import type { ReactNode } from "react";
import { RoleGate } from "@/components/auth/role-gate";
import { buttonPrimary, PageHeader, Panel } from "@/components/panel";

interface NewLink {
  /** "/targets/new" */
  href: string;
  /** "New target" */
  label: string;
}

/** The link to create one (or edit one: the targets list), for members who may. */
export function NewDefinitionLink({ href, label, className = "text-xs text-blue-600 hover:underline" }: NewLink & { className?: string }) {
  return (
    <RoleGate atLeast="editor">
      <Link href={href} className={className}>
        {label}
      </Link>
    </RoleGate>
  );
}

/** A list page: the header with its "New" button, the notice of what was just saved, and the panel of rows. */
export function DefinitionsListPage(props: {
  title: string;
  newLink: NewLink;
  saved: string | null;
  savedTestId: string;
  count: number;
  /** What would fill the list, shown when it is empty. */
  empty: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <div className="space-y-4">
      <PageHeader title={props.title} right={<NewDefinitionLink {...props.newLink} className={buttonPrimary} />} />
      {props.saved && (
        <p data-testid={props.savedTestId} className="rounded border border-emerald-300 bg-emerald-50 px-2 py-1 text-xs text-emerald-800">
          Saved: {props.saved}
        </p>
      )}
      <Panel title={`${props.title} (${props.count})`}>{props.count === 0 ? props.empty : props.children}</Panel>
      {props.footer}
    </div>
  );
}

/** A "New" page: its header, a link back to the list, and the form. */
export function NewDefinitionPage({
  title,
  listHref,
  listLabel,
  children,
}: {
  title: string;
  listHref: string;
  listLabel: string;
  children: ReactNode;
}) {
  return (
    <div className="space-y-4">
      <PageHeader title={title}>
        <Link href={listHref} className="text-xs text-blue-600 hover:underline">
          {listLabel}
        </Link>
      </PageHeader>
      {children}
    </div>
  );
}
