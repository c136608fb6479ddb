"use client";

import type { ReactNode } from "react";

export const inputClass =
  "h-7 w-full rounded border border-zinc-300 bg-white px-1.5 font-mono text-xs placeholder:text-zinc-400 focus:border-zinc-500 focus:outline-none disabled:bg-zinc-50 disabled:text-zinc-500 aria-[invalid=true]:border-red-500";

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
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is passed in as children
    <label className={`block min-w-0 ${className}`} data-field={path}>
      <span className="mb-0.5 block text-[11px] font-medium text-zinc-600">{label}</span>
      {children}
      {hint && errors.length === 0 && <span className="mt-0.5 block text-[11px] text-zinc-400">{hint}</span>}
      {errors.length > 0 && (
        <span data-testid={`error-${path}`} role="alert" className="mt-0.5 block text-[11px] text-red-600">
          {errors.join("; ")}
        </span>
      )}
    </label>
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
  placeholder?: string;
  invalid?: boolean;
  step?: string;
  /** The bounds the schema allows (the spinner stops there; a value outside is still sent, so the API names it). */
  min?: string;
  max?: string;
  name?: string;
}) {
  return (
    <input
      type="number"
      inputMode="decimal"
      step={step}
      min={min}
      max={max}
      name={name}
      className={inputClass}
      value={value}
      placeholder={placeholder}
      aria-invalid={invalid || undefined}
      onChange={(e) => onChange(e.target.value)}
    />
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
