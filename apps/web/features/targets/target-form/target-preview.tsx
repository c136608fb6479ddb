import type { ReactNode } from "react";

/** Beside the target form: the settings it will run with, what admits its address, and the JSON that will be saved. */
export function TargetPreview({ effective, saved, children }: { effective: string[] | null; saved: unknown; children?: ReactNode }) {
  return (
    <aside className="min-w-0 space-y-3">
      <section className="rounded-md border border-zinc-200 bg-white p-3">
        <h3 className="text-xs font-medium text-zinc-700">As it will run</h3>
        {effective ? (
          <ul data-testid="target-effective" className="mt-1 list-disc space-y-0.5 pl-4 text-2xs text-zinc-600">
            {effective.map((l) => (
              <li key={l}>{l}</li>
            ))}
          </ul>
        ) : (
          <p className="mt-1 text-2xs text-zinc-400">Not valid yet; saving shows what is wrong next to each field.</p>
        )}
      </section>
      {children}
      <details className="rounded-md border border-zinc-200 bg-white">
        <summary className="cursor-pointer px-3 py-1.5 text-xs text-zinc-600">The spec that will be saved (JSON)</summary>
        <pre className="max-h-80 overflow-auto border-t border-zinc-100 px-3 py-2 font-mono text-2xs leading-4 text-zinc-700">
          {JSON.stringify(saved, null, 2)}
        </pre>
      </details>
    </aside>
  );
}
