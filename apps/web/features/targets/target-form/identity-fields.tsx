import { LOCAL_APPS } from "@opsbench/core";
import { errorsAt, type FormErrors } from "@/lib/api/form-errors";
import { FormField, inputClass } from "@/components/form-field";
import { isLocalKind, kindOptions } from "./kinds/kind-forms";

/** What every target has: its name and its kind (both fixed when editing); and a local one the benchapp it runs. */
export function IdentityFields(props: {
  /** A saved target: its name says which one is replaced, and its boxes are its kind's. */
  editing?: boolean;
  name: string;
  onName: (name: string) => void;
  kind: string;
  onKind: (kind: string) => void;
  app: string;
  onApp: (app: string) => void;
  errors: FormErrors;
}) {
  const at = (p: string) => errorsAt(props.errors, p);
  return (
    <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
      <FormField
        label="Name"
        path="name"
        errors={at("name")}
        hint={props.editing ? "fixed: saving replaces this target" : "lower-case letters, digits, '.', '_' or '-'"}
      >
        <input
          name="name"
          className={inputClass}
          value={props.name}
          disabled={props.editing}
          onChange={(e) => props.onName(e.target.value)}
          placeholder="e.g. taewa-hpa"
          aria-invalid={at("name").length > 0 || undefined}
        />
      </FormField>
      <FormField label="Kind" path="kind" errors={at("kind")} className={isLocalKind(props.kind) ? "" : "md:col-span-2"}>
        <select
          name="kind"
          data-testid="target-kind"
          className={inputClass}
          value={props.kind}
          disabled={props.editing}
          onChange={(e) => props.onKind(e.target.value)}
        >
          {kindOptions().map(({ kind: k, label }) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </select>
      </FormField>
      {isLocalKind(props.kind) && (
        <FormField label="App (benchapps/)" path="spec.app" errors={at("spec.app")}>
          <select name="app" className={inputClass} value={props.app} onChange={(e) => props.onApp(e.target.value)}>
            {LOCAL_APPS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </FormField>
      )}
    </div>
  );
}
