import type { CredentialKind } from "@opsbench/core";
import { CredentialSelect } from "@/features/targets/target-form/credential-select";
import { FormSection } from "@/features/targets/target-form/form-section";
import { METRICS_DEFAULTS } from "./platform-spec";
import type { KindFieldsProps } from "./kind-props";

/** The account a cloud kind deploys with: a workspace credential of that platform and a region. */
export function AccountFields({ kind, regionHint, ...p }: KindFieldsProps & { kind: CredentialKind; regionHint: string }) {
  return (
    <FormSection title="Account">
      <CredentialSelect
        kind={kind}
        path="credential"
        value={p.inputs.value("credential")}
        onChange={p.inputs.set("credential")}
        credentials={p.credentials}
        errors={p.errors}
      />
      {p.inputs.text("Region", "region", { placeholder: regionHint })}
    </FormSection>
  );
}

/** Where the load goes and how long to wait for the platform's metrics (they arrive minutes late). */
export function LoadAndMetricsFields({ inputs, ownAddress }: KindFieldsProps & { ownAddress: string }) {
  return (
    <FormSection title="Load and platform metrics">
      {inputs.text("Send the load to (URL)", "endpointUrl", {
        placeholder: ownAddress,
        hint: "optional: a DNS name in front of it; default the platform's own address",
        wide: true,
      })}
      {inputs.num("Settle (s)", "metrics.settleSeconds", {
        placeholder: String(METRICS_DEFAULTS.settleSeconds),
        hint: "a period counts this long after it ended",
      })}
      {inputs.num("Wait at most (s)", "metrics.waitSeconds", {
        placeholder: String(METRICS_DEFAULTS.waitSeconds),
        hint: "for the window's last periods",
      })}
      {inputs.num("Ask every (s)", "metrics.pollSeconds", { placeholder: String(METRICS_DEFAULTS.pollSeconds) })}
    </FormSection>
  );
}
