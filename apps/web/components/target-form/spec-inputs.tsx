// The two kinds of spec box the target form has: a number and a choice with a default, each bound to a
// value and showing the API's errors at `spec.<path>`.
import type { ReactNode } from "react";
import { errorsAt, type FormErrors } from "@/lib/api/form-errors";
import { FormField, inputClass, NumberInput } from "../form-field";
import type { TargetValues } from "./target-spec";

export interface NumberOptions {
  hint?: ReactNode;
  placeholder?: string;
  step?: string;
}

export interface SpecInputs {
  num(label: string, key: keyof TargetValues, path: string, opts?: NumberOptions): ReactNode;
  pick(label: string, key: keyof TargetValues, path: string, options: readonly string[], defaultLabel: string): ReactNode;
}

export function specInputs(
  values: TargetValues,
  set: (key: keyof TargetValues) => (value: string) => void,
  errors: FormErrors,
): SpecInputs {
  const at = (p: string) => errorsAt(errors, p);
  return {
    num: (label, key, path, opts = {}) => (
      <FormField label={label} path={`spec.${path}`} errors={at(`spec.${path}`)} hint={opts.hint}>
        <NumberInput
          name={path}
          value={values[key]}
          onChange={set(key)}
          placeholder={opts.placeholder}
          step={opts.step}
          invalid={at(`spec.${path}`).length > 0}
        />
      </FormField>
    ),
    pick: (label, key, path, options, defaultLabel) => (
      <FormField label={label} path={`spec.${path}`} errors={at(`spec.${path}`)}>
        <select name={path} className={inputClass} value={values[key]} onChange={(e) => set(key)(e.target.value)}>
          <option value="">{defaultLabel}</option>
          {options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </FormField>
    ),
  };
}
