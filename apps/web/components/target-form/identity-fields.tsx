import { LOCAL_APPS } from "@opsbench/core";
import { errorsAt, type FormErrors } from "@/lib/api/form-errors";
import { FormField, inputClass } from "../form-field";
import type { TargetFormKind } from "./target-spec";

/** What every target has: its name, its kind, and the benchapp it runs. */
export function IdentityFields(props: {
  name: string;
  onName: (name: string) => void;
  kind: TargetFormKind;
  onKind: (kind: TargetFormKind) => void;
  app: string;
  onApp: (app: string) => void;
  errors: FormErrors;
}) {
  const at = (p: string) => errorsAt(props.errors, p);
  return (
    <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
      <FormField label="Name" path="name" errors={at("name")} hint="lower-case letters, digits, '.', '_' or '-'">
        <input
          name="name"
          className={inputClass}
          value={props.name}
          onChange={(e) => props.onName(e.target.value)}
          placeholder="e.g. taewa-hpa"
          aria-invalid={at("name").length > 0 || undefined}
        />
      </FormField>
      <FormField label="Kind" path="kind" errors={at("kind")}>
        <select
          name="kind"
          data-testid="target-kind"
          className={inputClass}
          value={props.kind}
          onChange={(e) => props.onKind(e.target.value as TargetFormKind)}
        >
          <option value="local-service">local-service (replicas, HPA)</option>
          <option value="local-function">local-function (scale to zero)</option>
        </select>
      </FormField>
      <FormField label="App (benchapps/)" path="spec.app" errors={at("spec.app")}>
        <select name="app" className={inputClass} value={props.app} onChange={(e) => props.onApp(e.target.value)}>
          {LOCAL_APPS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </FormField>
    </div>
  );
}
