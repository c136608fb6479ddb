import type { ReactNode } from "react";

/** A titled white box, the pages' basic block. */
export function Panel({
  title,
  right,
  children,
  testId,
  className = "",
}: {
  title: ReactNode;
  right?: ReactNode;
  children: ReactNode;
  testId?: string;
  className?: string;
}) {
  return (
    <section data-testid={testId} className={`rounded-md border border-zinc-200 bg-white ${className}`}>
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-zinc-200 px-3 py-2">
        <h2 className="text-xs font-medium text-zinc-600">{title}</h2>
        {right}
      </div>
      {children}
    </section>
  );
}

/** Page title with an optional action on the right. */
export function PageHeader({ title, right, children }: { title: ReactNode; right?: ReactNode; children?: ReactNode }) {
  return (
    <header className="flex flex-wrap items-center gap-3">
      <h1 className="text-base font-semibold">{title}</h1>
      {children}
      {right && <span className="ml-auto">{right}</span>}
    </header>
  );
}

export const tableHead = "px-3 py-1.5 text-left text-2xs font-medium uppercase tracking-wide text-zinc-500";
export const tableCell = "px-3 py-1.5";
export const buttonPrimary =
  "inline-flex h-7 items-center rounded bg-zinc-900 px-3 text-xs font-medium text-white hover:bg-zinc-700 disabled:opacity-40";
export const buttonSecondary =
  "inline-flex h-7 items-center rounded border border-zinc-300 bg-white px-3 text-xs font-medium text-zinc-800 hover:bg-zinc-50 disabled:opacity-40";
