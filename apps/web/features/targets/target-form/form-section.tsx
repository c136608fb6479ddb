import type { ReactNode } from "react";

/** A titled group of spec fields, four to a row. */
export function FormSection({ title, children, note }: { title: string; children: ReactNode; note?: ReactNode }) {
  return (
    <fieldset className="space-y-2 border-t border-zinc-100 pt-3">
      <legend className="text-xs font-semibold text-zinc-700">{title}</legend>
      {note && <p className="text-2xs text-zinc-500">{note}</p>}
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4">{children}</div>
    </fieldset>
  );
}
