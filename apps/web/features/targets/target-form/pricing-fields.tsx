import type { ReactNode } from "react";
import { errorsAt, type FormErrors } from "@/lib/api/form-errors";
import { FormField, inputClass, NumberInput } from "@/components/form-field";
import { FormSection } from "./form-section";
import { CATALOG_CHOICES, type PricingMode, type PricingValues } from "./pricing";

const MODES: ReadonlyArray<readonly [PricingMode, string]> = [
  ["none", "not priced"],
  ["catalog", "a price catalog"],
  ["reserved", "per node-hour (serverful)"],
  ["pay-per-use", "per request and billed second (serverless)"],
  ["document", "a cost model (JSON)"],
];

/**
 * Every kind's pricing: what a run of the target would have cost on the platform it stands for (docs/cost.md). The
 * worker prices each run under it; the compare page shows cost per 1 M successful requests and per month.
 */
export function PricingFields({
  values: p,
  set,
  errors,
}: {
  values: PricingValues;
  set: (key: keyof PricingValues) => (value: string) => void;
  errors: FormErrors;
}) {
  /** The box of a model field: the API's errors at spec.costModel.<field> next to it. */
  const placed = new Set<string>();
  const field = (label: string, modelField: string, control: ReactNode, hint?: ReactNode, wide = false) => {
    const path = modelField ? `spec.costModel.${modelField}` : "spec.costModel";
    placed.add(path);
    return (
      <FormField
        label={label}
        path={path}
        errors={errorsAt(errors, path, { nested: !modelField })}
        hint={hint}
        className={wide ? "col-span-2 md:col-span-4" : ""}
      >
        {control}
      </FormField>
    );
  };
  const price = (label: string, key: keyof PricingValues, modelField: string, hint?: ReactNode) =>
    field(
      label,
      modelField,
      <NumberInput
        name={`pricing.${key}`}
        value={p[key]}
        onChange={set(key)}
        step="any"
        min="0"
        invalid={errorsAt(errors, `spec.costModel.${modelField}`).length > 0 || undefined}
      />,
      hint,
    );
  const unit = field(
    "Currency",
    "unit",
    <input name="pricing.unit" className={inputClass} value={p.unit} onChange={(e) => set("unit")(e.target.value)} placeholder="USD" />,
    "as the prices are in: USD, EUR, EUR-cent…",
  );
  const chosen = CATALOG_CHOICES.find((c) => c.name === p.catalog);
  return (
    <FormSection
      title="Pricing"
      note="What a run would have cost on the platform this target stands for: the compare page shows cost per 1 M successful requests and per month at the measured rate."
    >
      <div className="col-span-2 flex flex-wrap gap-x-4 gap-y-1 text-xs md:col-span-4" role="radiogroup" aria-label="Pricing">
        {MODES.map(([m, label]) => (
          <label key={m} className="inline-flex items-center gap-1.5">
            <input type="radio" name="pricing.mode" value={m} checked={p.mode === m} onChange={() => set("mode")(m)} />
            {label}
          </label>
        ))}
      </div>
      {p.mode === "catalog" &&
        field(
          "Price catalog",
          "catalog",
          <select
            name="pricing.catalog"
            className={`${inputClass} md:w-1/2`}
            value={p.catalog}
            onChange={(e) => set("catalog")(e.target.value)}
          >
            <option value="">choose one…</option>
            {CATALOG_CHOICES.map((c) => (
              <option key={c.name} value={c.name}>
                {c.label}
              </option>
            ))}
          </select>,
          chosen?.description,
          true,
        )}
      {p.mode === "reserved" && (
        <>
          {unit}
          {price("Price per node-hour", "perNodeHour", "pricePerNodeSecond", "each replica or node, while it exists")}
          {price("Fixed fee per hour", "feePerHour", "feePerSecond", "optional: a control plane, a load balancer")}
          {field(
            "Node",
            "nodeLabel",
            <input
              name="pricing.nodeLabel"
              className={inputClass}
              value={p.nodeLabel}
              onChange={(e) => set("nodeLabel")(e.target.value)}
              placeholder="node"
            />,
            "its name on the bill, e.g. t3.medium",
          )}
        </>
      )}
      {p.mode === "pay-per-use" && (
        <>
          {unit}
          {price("Price per 1 M requests", "perMillionRequests", "pricePerRequest", "Lambda: 0.20 USD")}
          {price("Price per vCPU-second", "perVcpuSecond", "pricePerVcpuSecond")}
          {price("Price per GB-second", "perGibSecond", "pricePerGibSecond", "GiB of memory, per billed second")}
          {price("vCPU per instance", "vcpu", "vcpu", "default 1")}
          {price("Memory (GiB)", "memoryGib", "memoryGib", "needed with a GB-second price")}
        </>
      )}
      {p.mode === "document" &&
        field(
          "Cost model (JSON)",
          "",
          <textarea
            name="pricing.document"
            rows={6}
            spellCheck={false}
            className={`${inputClass} h-auto py-1 font-mono`}
            value={p.document}
            onChange={(e) => set("document")(e.target.value)}
          />,
          'a model ({"kind": ...}) or a catalog reference with overrides ({"catalog": ..., ...}); docs/cost.md',
          true,
        )}
      <UnplacedErrors errors={errors} placed={placed} />
    </FormSection>
  );
}

/** What the API said of the model that no box above shows (a field the mode has no box for). */
function UnplacedErrors({ errors, placed }: { errors: FormErrors; placed: ReadonlySet<string> }) {
  const rest = Object.entries(errors.fields).filter(
    ([path]) => (path === "spec.costModel" || path.startsWith("spec.costModel.")) && !placed.has(path),
  );
  if (rest.length === 0) return null;
  return (
    <p data-testid="error-spec.costModel" role="alert" className="col-span-2 text-2xs text-red-600 md:col-span-4">
      {rest.map(([path, msgs]) => `${path.slice("spec.".length)}: ${msgs.join("; ")}`).join("; ")}
    </p>
  );
}
