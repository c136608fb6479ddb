// The kinds of spec box the target form has: a number, a line of text, a text area and a choice with a
// default, each bound to a value and showing the API's errors at `spec.<path>`.
import type { ReactNode } from "react";
import { errorsAt, type FormErrors } from "@/lib/api/form-errors";
import { FormField, inputClass, NumberInput, TextInputWithDefault } from "@/components/form-field";
import type { TargetValues } from "./target-spec";

export interface NumberOptions {
  hint?: ReactNode;
  placeholder?: string;
  step?: string;
  min?: string;
  max?: string;
}

export interface PickOptions {
  /** What an option means when its value alone does not. */
  labels?: Readonly<Record<string, string>>;
  hint?: ReactNode;
}

export interface TextOptions {
  hint?: ReactNode;
  /** An example of what to type (grey, gone when typing). */
  placeholder?: string;
  /** What the empty box stands for: shown in the box as a value marked "default". */
  shownDefault?: string;
  /** Rows of a text area. */
  rows?: number;
  /** Spans the whole row of the section. */
  wide?: boolean;
}

export interface SpecInputs<K extends string = keyof TargetValues> {
  num(label: string, key: K, path: string, opts?: NumberOptions): ReactNode;
  pick(label: string, key: K, path: string, options: readonly string[], defaultLabel: string, opts?: PickOptions): ReactNode;
  text(label: string, key: K, path: string, opts?: TextOptions): ReactNode;
  area(label: string, key: K, path: string, opts?: TextOptions): ReactNode;
}

export function specInputs<K extends string>(
  values: Record<K, string>,
  set: (key: K) => (value: string) => void,
  errors: FormErrors,
): SpecInputs<K> {
  const at = (p: string) => errorsAt(errors, p);
  const field = (label: string, path: string, hint: ReactNode, control: ReactNode, wide = false) => (
    <FormField
      label={label}
      path={`spec.${path}`}
      errors={at(`spec.${path}`)}
      hint={hint}
      className={wide ? "col-span-2 md:col-span-4" : ""}
    >
      {control}
    </FormField>
  );
  const invalid = (path: string) => (at(`spec.${path}`).length > 0 ? true : undefined);
  return {
    num: (label, key, path, opts = {}) =>
      field(
        label,
        path,
        opts.hint,
        <NumberInput
          name={path}
          value={values[key]}
          onChange={set(key)}
          placeholder={opts.placeholder}
          step={opts.step}
          min={opts.min}
          max={opts.max}
          invalid={invalid(path)}
        />,
      ),
    pick: (label, key, path, options, defaultLabel, { labels = {}, hint } = {}) =>
      field(
        label,
        path,
        hint,
        <select
          name={path}
          className={inputClass}
          value={values[key]}
          aria-invalid={invalid(path)}
          onChange={(e) => set(key)(e.target.value)}
        >
          <option value="">{defaultLabel}</option>
          {options.map((o) => (
            <option key={o} value={o}>
              {labels[o] ?? o}
            </option>
          ))}
        </select>,
      ),
    text: (label, key, path, opts = {}) =>
      field(
        label,
        path,
        opts.hint,
        opts.shownDefault ? (
          <TextInputWithDefault
            name={path}
            value={values[key]}
            onChange={set(key)}
            shownDefault={opts.shownDefault}
            invalid={invalid(path)}
          />
        ) : (
          <input
            name={path}
            className={inputClass}
            value={values[key]}
            placeholder={opts.placeholder}
            aria-invalid={invalid(path)}
            onChange={(e) => set(key)(e.target.value)}
          />
        ),
        opts.wide,
      ),
    area: (label, key, path, opts = {}) =>
      field(
        label,
        path,
        opts.hint,
        <textarea
          name={path}
          rows={opts.rows ?? 6}
          spellCheck={false}
          className={`${inputClass} h-auto py-1`}
          value={values[key]}
          placeholder={opts.placeholder}
          aria-invalid={invalid(path)}
          onChange={(e) => set(key)(e.target.value)}
        />,
        true,
      ),
  };
}
