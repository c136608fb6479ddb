import { CredentialSelect } from "../credential-select";
import { FormSection } from "../form-section";
import type { KindFieldsProps } from "./kind-props";

/** endpoint: an existing deployment at a URL, optionally linked to its Kubernetes namespace for the platform's series. */
export function EndpointFields(p: KindFieldsProps) {
  const { text, check, value, set } = p.inputs;
  return (
    <>
      <FormSection title="Endpoint" note="Nothing is deployed: the load goes to this URL, only where the host policy allows.">
        {text("URL", "url", { placeholder: "https://bench.example.com", wide: true })}
      </FormSection>
      <FormSection title="Linked resources (optional)">
        <div className="col-span-2 md:col-span-4">
          {check("Link to a Kubernetes namespace", "@linked", "(its replicas, HPA and events land on the timeline)")}
        </div>
        {value("@linked") === "true" && (
          <>
            <CredentialSelect
              kind="kubernetes"
              path="linked.credential"
              value={value("linked.credential")}
              onChange={set("linked.credential")}
              credentials={p.credentials}
              errors={p.errors}
            />
            {text("Namespace", "linked.namespace")}
            {text("Deployment", "linked.deployment", { placeholder: "all of them" })}
          </>
        )}
      </FormSection>
    </>
  );
}
