import { errorsAt } from "@/lib/api/form-errors";
import { FormField, inputClass, NumberInput } from "@/components/form-field";
import { CUSTOM_DEFAULTS, type CustomFieldsProps } from "./custom-spec";
import { DefaultMark } from "./default-mark";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"];

/** The "Build" tab's request: method, path and body, think time, timeout and a p95 threshold. */
export function CustomRequestFields({ custom, onChange, errors }: CustomFieldsProps) {
  const at = (p: string) => errorsAt(errors, p);
  return (
    <>
      <div className="grid grid-cols-[6rem_minmax(0,1fr)] gap-3 border-t border-zinc-100 pt-3">
        <FormField label="Method" path="spec.requests.0.method" errors={at("spec.requests.0.method")}>
          <select className={inputClass} value={custom.method} onChange={(e) => onChange({ method: e.target.value })}>
            {METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </FormField>
        <FormField
          label="Path"
          path="spec.requests.0.path"
          errors={at("spec.requests.0.path")}
          hint="templates allowed, e.g. /?n={{randomInt 1 100}}"
        >
          <input name="path" className={inputClass} value={custom.path} onChange={(e) => onChange({ path: e.target.value })} />
        </FormField>
      </div>
      {custom.method !== "GET" && custom.method !== "HEAD" && (
        <FormField label="Body" path="spec.requests.0.body" errors={at("spec.requests.0.body")}>
          <textarea className={`${inputClass} h-16 py-1`} value={custom.body} onChange={(e) => onChange({ body: e.target.value })} />
        </FormField>
      )}
      <div className="grid grid-cols-3 gap-3">
        <FormField label="Think time" path="spec.thinkTime" errors={at("spec.thinkTime")} hint="pause after each iteration; empty: none">
          <input
            className={inputClass}
            value={custom.thinkTime}
            name="thinkTime"
            onChange={(e) => onChange({ thinkTime: e.target.value })}
          />
        </FormField>
        <FormField
          label={
            <>
              Request timeout <DefaultMark value={custom.requestTimeout} byDefault={CUSTOM_DEFAULTS.requestTimeout} />
            </>
          }
          path="spec.requestTimeout"
          errors={at("spec.requestTimeout")}
        >
          <input
            name="requestTimeout"
            className={inputClass}
            value={custom.requestTimeout}
            onChange={(e) => onChange({ requestTimeout: e.target.value })}
          />
        </FormField>
        <FormField
          label="Threshold: p95 below (ms)"
          path="spec.thresholds"
          errors={errorsAt(errors, "spec.thresholds", { nested: true })}
          hint="empty: no threshold"
        >
          <NumberInput name="p95Below" value={custom.p95Below} onChange={(v) => onChange({ p95Below: v })} />
        </FormField>
      </div>
    </>
  );
}
