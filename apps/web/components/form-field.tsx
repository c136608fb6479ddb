"use client";

import type { ReactNode } from "react";

const inputBase =
  "h-7 w-full rounded border border-zinc-300 bg-white px-1.5 font-mono text-xs focus:border-zinc-500 focus:outline-none disabled:bg-zinc-50 disabled:text-zinc-500 aria-[invalid=true]:border-red-500";
export const inputClass = `${inputBase} placeholder:text-zinc-500`;

/** A labelled form control with its hint and, when the API refused it, its errors (data-testid `error-<path>`). */
export function FormField({
  label,
  path,
  errors,
  hint,
  children,
  className = "",
}: {
  label: ReactNode;
  path: string;
  errors: string[];
  hint?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  // The hint and the errors sit outside the <label>, so the control's accessible name is the label alone (inside,
  // a screen reader would read "Name optional: your email when left empty" as the field's name).
  return (
    <div className={`min-w-0 ${className}`} data-field={path}>
      {/* biome-ignore lint/a11y/noLabelWithoutControl: the control is passed in as children */}
      <label className="block">
        <span className="mb-0.5 block text-2xs font-medium text-zinc-700">{label}</span>
        {children}
      </label>
      {hint && errors.length === 0 && <span className="mt-0.5 block text-2xs text-zinc-500">{hint}</span>}
      {errors.length > 0 && (
        <span data-testid={`error-${path}`} role="alert" className="mt-0.5 block text-2xs text-red-700">
          {errors.join("; ")}
        </span>
      )}
    </div>
  );
}

/**
 * What an empty box stands for, shown in the box as a value marked "default" (not as a grey placeholder, which reads
 * as "nothing" and disappears on focus). Screen readers get it from the input's placeholder, "<value> (default)",
 * which is drawn transparent; the visible copy is aria-hidden. Hidden once the user types.
 */
export function ShownDefault({ value, shown }: { value: string; shown?: string }) {
  if (!shown || value !== "") return null;
  return (
    <span
      aria-hidden="true"
      data-testid="shown-default"
      className="pointer-events-none absolute inset-y-0 left-1.5 right-6 flex items-center gap-1.5 overflow-hidden font-mono text-xs text-zinc-800"
    >
      <span className="truncate">{shown}</span>
      <span className="shrink-0 rounded bg-zinc-100 px-1 font-sans text-2xs leading-4 text-zinc-600">default</span>
    </span>
  );
}

/** The placeholder attribute of a box whose default ShownDefault draws: read by screen readers, drawn transparent. */
export const defaultPlaceholder = (shown: string | undefined) => (shown ? `${shown} (default)` : undefined);
const withShownDefault = (shown: string | undefined) => (shown ? `${inputBase} placeholder:text-transparent` : inputClass);

/** A text input whose empty value means `shownDefault` (shown in the box, marked "default"). */
export function TextInputWithDefault({
  value,
  onChange,
  shownDefault,
  invalid,
  name,
}: {
  value: string;
  onChange: (v: string) => void;
  shownDefault: string;
  invalid?: boolean;
  name?: string;
}) {
  return (
    <span className="relative block">
      <input
        name={name}
        className={withShownDefault(shownDefault)}
        value={value}
        placeholder={defaultPlaceholder(shownDefault)}
        aria-invalid={invalid || undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      <ShownDefault value={value} shown={shownDefault} />
    </span>
  );
}

/** A number input kept as text so that an empty box means "the default" (left out of the spec). */
export function NumberInput({
  value,
  onChange,
  placeholder,
  invalid,
  step = "any",
  min,
  max,
  name,
}: {
  value: string;
  onChange: (v: string) => void;
  /** What the empty box stands for (the default): shown in the box as a value marked "default". */
  placeholder?: string;
  invalid?: boolean;
  step?: string;
  /** The bounds the schema allows (the spinner stops there; a value outside is still sent, so the API names it). */
  min?: string;
  max?: string;
  name?: string;
}) {
  return (
    <span className="relative block">
      <input
        type="number"
        inputMode="decimal"
        step={step}
        min={min}
        max={max}
        name={name}
        className={withShownDefault(placeholder)}
        value={value}
        placeholder={defaultPlaceholder(placeholder)}
        aria-invalid={invalid || undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      <ShownDefault value={value} shown={placeholder} />
    </span>
  );
}

/** "" -> undefined (use the default); anything else as a number (NaN is sent as is, so the API names the field). */
export const numberOrUndefined = (v: string): number | undefined => (v.trim() === "" ? undefined : Number(v));

/** The error banner at the top of a form. */
export function FormErrorBanner({ message, testId = "form-error" }: { message: string; testId?: string }) {
  if (!message) return null;
  return (
    <p data-testid={testId} role="alert" className="rounded border border-red-300 bg-red-50 px-2 py-1.5 text-xs text-red-800">
      {message}
    </p>
  );
}
