// The cloud kinds' boxes, keyed by their spec path, with the kind schema's defaults shown in the box as values marked "default"
// (an empty box = the default).
import type { ReactNode } from "react";
import type { z } from "zod";
import type { FormErrors } from "@/lib/api/form-errors";
import { type NumberOptions, type PickOptions, specInputs, type TextOptions } from "./spec-inputs";
import { schemaBounds, schemaDefault, type SpecValues } from "./spec-values";

export interface KindInputs {
  num(label: string, path: string, opts?: NumberOptions): ReactNode;
  text(label: string, path: string, opts?: TextOptions): ReactNode;
  area(label: string, path: string, opts?: TextOptions): ReactNode;
  /** A choice; the empty option is the schema's default (or `none`). */
  pick(label: string, path: string, options: readonly string[], none?: string, opts?: PickOptions): ReactNode;
  /** A yes/no box: checked = true; unchecked leaves the field out. */
  check(label: string, path: string, hint?: ReactNode): ReactNode;
  value(path: string): string;
  set(path: string): (value: string) => void;
}

export function kindInputs(
  schema: z.ZodType,
  values: SpecValues,
  set: (path: string) => (v: string) => void,
  errors: FormErrors,
): KindInputs {
  const inputs = specInputs<string>(new Proxy(values, { get: (o, k: string) => o[k] ?? "" }), set, errors);
  const dflt = (path: string) => schemaDefault(schema, path);
  return {
    num: (label, path, opts = {}) =>
      inputs.num(label, path, path, { step: "1", placeholder: dflt(path), ...schemaBounds(schema, path), ...opts }),
    text: (label, path, opts = {}) => inputs.text(label, path, path, { shownDefault: dflt(path), ...opts }),
    area: (label, path, opts = {}) => inputs.area(label, path, path, opts),
    pick: (label, path, options, none, opts) => inputs.pick(label, path, path, options, none ?? `${dflt(path) ?? "none"} (default)`, opts),
    check: (label, path, hint) => (
      <label className="inline-flex items-center gap-1.5 text-xs text-zinc-700" data-field={`spec.${path}`}>
        <input type="checkbox" name={path} checked={values[path] === "true"} onChange={(e) => set(path)(e.target.checked ? "true" : "")} />
        {label}
        {hint && <span className="text-2xs text-zinc-400">{hint}</span>}
      </label>
    ),
    value: (path) => values[path] ?? "",
    set,
  };
}
