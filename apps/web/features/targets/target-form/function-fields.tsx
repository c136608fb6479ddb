import { FUNCTION_PLATFORM_DEFAULTS, FUNCTION_PLATFORMS, type FunctionPlatform } from "@opsbench/core";
import { errorsAt, type FormErrors } from "@/lib/api/form-errors";
import { FormField, inputClass } from "@/components/form-field";
import { FormSection } from "./form-section";
import type { SpecInputs } from "./spec-inputs";

/** The local-function kind's fields: a platform preset (its defaults as placeholders), scaling, billing and limits. */
export function FunctionFields({
  platform,
  onPlatform,
  inputs,
  errors,
}: {
  platform: FunctionPlatform;
  onPlatform: (p: FunctionPlatform) => void;
  inputs: SpecInputs;
  errors: FormErrors;
}) {
  const { num, pick } = inputs;
  const d = FUNCTION_PLATFORM_DEFAULTS[platform];
  return (
    <>
      <FormSection title="Platform" note="The platform sets the defaults (shown greyed); fill a box to override it.">
        <FormField label="Platform preset" path="spec.platform" errors={errorsAt(errors, "spec.platform")}>
          <select
            name="platform"
            data-testid="target-platform"
            className={inputClass}
            value={platform}
            onChange={(e) => onPlatform(e.target.value as FunctionPlatform)}
          >
            {FUNCTION_PLATFORMS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </FormField>
        {num("Concurrency", "concurrency", "concurrency", {
          step: "1",
          placeholder: String(d.concurrency),
          hint: "requests one instance serves at once",
        })}
        {num("Min instances", "minInstances", "minInstances", { step: "1", placeholder: "0", hint: "0 = scale to zero" })}
        {num("Max instances", "maxInstances", "maxInstances", { step: "1", placeholder: String(d.maxInstances) })}
        {num("Idle timeout (ms)", "idleTimeoutMs", "idleTimeoutMs", {
          step: "1",
          placeholder: String(d.idleTimeoutMs),
          hint: "then the instance stops",
        })}
        {num("Queue timeout (ms)", "queueTimeoutMs", "queueTimeoutMs", {
          step: "1",
          placeholder: String(d.queueTimeoutMs),
          hint: "then 429",
        })}
        {num("Max queue", "maxQueue", "maxQueue", { step: "1", placeholder: "1000" })}
        {num("Start timeout (ms)", "startTimeoutMs", "startTimeoutMs", { step: "1", placeholder: "10000" })}
      </FormSection>
      <FormSection title="Billing and limits">
        {pick("Billing mode", "billingMode", "billing.mode", ["per-request", "per-instance"], `${d.billing.mode} (platform)`)}
        {num("Billing granularity (ms)", "granularityMs", "billing.granularityMs", {
          step: "1",
          placeholder: String(d.billing.granularityMs),
        })}
        {num("Billed minimum (ms)", "minimumMs", "billing.minimumMs", { step: "1", placeholder: String(d.billing.minimumMs) })}
        {num("CPU limit (cores)", "cpuLimit", "resources.cpuLimit", { placeholder: "none" })}
        {num("Memory limit (MiB)", "memoryLimitMb", "resources.memoryLimitMb", { step: "1", placeholder: "none" })}
      </FormSection>
    </>
  );
}
