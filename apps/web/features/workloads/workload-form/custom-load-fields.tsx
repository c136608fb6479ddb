import { errorsAt } from "@/lib/api/form-errors";
import { FormField, inputClass, NumberInput } from "@/components/form-field";
import { CUSTOM_DEFAULTS, CUSTOM_KIND_LABELS, CUSTOM_KINDS, type CustomFieldsProps, type CustomKind, rateUnit } from "./custom-spec";
import { DefaultMark } from "./default-mark";
import { StageEditor } from "./stage-editor";

/** The "Build" tab's load: a kind, the fields that kind has (VUs, iterations, rates, durations), and its stages. */
export function CustomLoadFields({ custom, onChange, errors }: CustomFieldsProps) {
  const at = (p: string) => errorsAt(errors, p);
  const unit = rateUnit(custom);
  const kind = custom.kind;
  return (
    <>
      <FormField label="Kind" path="spec.kind" errors={at("spec.kind")}>
        <select
          name="kind"
          data-testid="kind-select"
          className={inputClass}
          value={kind}
          onChange={(e) => onChange({ kind: e.target.value as CustomKind })}
        >
          {CUSTOM_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}: {CUSTOM_KIND_LABELS[k]}
            </option>
          ))}
        </select>
      </FormField>
      <div className="grid grid-cols-2 gap-3 md:grid-cols-3">
        {kind === "ramping-vus" && (
          <FormField label="Start VUs" path="spec.startVUs" errors={at("spec.startVUs")}>
            <NumberInput name="startVUs" value={custom.startVUs} onChange={(v) => onChange({ startVUs: v })} step="1" />
          </FormField>
        )}
        {(kind === "constant-vus" || kind === "shared-iterations") && (
          <FormField label="VUs (concurrency)" path="spec.vus" errors={at("spec.vus")}>
            <NumberInput name="vus" value={custom.vus} onChange={(v) => onChange({ vus: v })} step="1" />
          </FormField>
        )}
        {kind === "shared-iterations" && (
          <>
            <FormField label="Requests (iterations)" path="spec.iterations" errors={at("spec.iterations")}>
              <NumberInput name="iterations" value={custom.iterations} onChange={(v) => onChange({ iterations: v })} step="1" />
            </FormField>
            <FormField
              label={
                <>
                  Max duration <DefaultMark value={custom.maxDuration} byDefault={CUSTOM_DEFAULTS.maxDuration} />
                </>
              }
              path="spec.maxDuration"
              errors={at("spec.maxDuration")}
              hint="the run stops here even if requests remain"
            >
              <input
                name="maxDuration"
                className={inputClass}
                value={custom.maxDuration}
                onChange={(e) => onChange({ maxDuration: e.target.value })}
              />
            </FormField>
          </>
        )}
        {kind === "constant-arrival-rate" && (
          <FormField label={`Rate (${unit})`} path="spec.rate" errors={at("spec.rate")}>
            <NumberInput name="rate" value={custom.rate} onChange={(v) => onChange({ rate: v })} step="1" />
          </FormField>
        )}
        {kind === "ramping-arrival-rate" && (
          <FormField label={`Start rate (${unit})`} path="spec.startRate" errors={at("spec.startRate")}>
            <NumberInput name="startRate" value={custom.startRate} onChange={(v) => onChange({ startRate: v })} step="1" />
          </FormField>
        )}
        {(kind === "constant-vus" || kind === "constant-arrival-rate") && (
          <FormField label="Duration" path="spec.duration" errors={at("spec.duration")}>
            <input
              name="duration"
              className={inputClass}
              value={custom.duration}
              onChange={(e) => onChange({ duration: e.target.value })}
            />
          </FormField>
        )}
        {(kind === "constant-arrival-rate" || kind === "ramping-arrival-rate") && (
          <>
            <FormField
              label={
                <>
                  Time unit <DefaultMark value={custom.timeUnit} byDefault={CUSTOM_DEFAULTS.timeUnit} />
                </>
              }
              path="spec.timeUnit"
              errors={at("spec.timeUnit")}
            >
              <input
                name="timeUnit"
                className={inputClass}
                value={custom.timeUnit}
                onChange={(e) => onChange({ timeUnit: e.target.value })}
              />
            </FormField>
            <FormField label="Pre-allocated VUs" path="spec.preAllocatedVUs" errors={at("spec.preAllocatedVUs")}>
              <NumberInput
                name="preAllocatedVUs"
                value={custom.preAllocatedVUs}
                onChange={(v) => onChange({ preAllocatedVUs: v })}
                step="1"
              />
            </FormField>
            <FormField
              label="Max VUs"
              path="spec.maxVUs"
              errors={at("spec.maxVUs")}
              hint={
                custom.maxVUs.trim() === ""
                  ? `empty: the pre-allocated VUs (${custom.preAllocatedVUs || "?"}); more busy: iterations dropped`
                  : "more busy: iterations dropped"
              }
            >
              <NumberInput name="maxVUs" value={custom.maxVUs} onChange={(v) => onChange({ maxVUs: v })} step="1" />
            </FormField>
          </>
        )}
      </div>
      {(kind === "ramping-vus" || kind === "ramping-arrival-rate") && (
        <StageEditor
          stages={custom.stages}
          onChange={(stages) => onChange({ stages })}
          errors={errors}
          targetLabel={kind === "ramping-vus" ? "VUs" : `iterations ${unit}`}
        />
      )}
    </>
  );
}
