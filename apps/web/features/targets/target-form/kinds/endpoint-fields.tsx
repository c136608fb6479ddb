import { CredentialSelect } from "@/features/targets/target-form/credential-select";
import { FormSection } from "@/features/targets/target-form/form-section";
import { ModeChoice } from "@/features/targets/target-form/mode-choice";
import { ENDPOINT_LINK_CREDENTIAL, type EndpointLinkKind } from "./endpoint-spec";
import type { KindFieldsProps } from "./kind-props";

/** endpoint: an existing deployment at a URL, optionally linked to the platform resources behind it for their series. */
export function EndpointFields(p: KindFieldsProps) {
  const { text, value, set } = p.inputs;
  const link = (value("@link") || "none") as EndpointLinkKind;
  return (
    <>
      <FormSection title="Endpoint" note="Nothing is deployed: the load goes to this URL, only where the host policy allows.">
        {text("URL", "url", { placeholder: "https://bench.example.com", wide: true })}
      </FormSection>
      <FormSection title="Linked resources (optional: their metrics land on the timeline; opsbench only reads them)">
        <ModeChoice<EndpointLinkKind>
          name="@link"
          value={link}
          onChange={set("@link")}
          modes={[
            ["none", "not linked"],
            ["kubernetes", "a Kubernetes Deployment"],
            ["aws", "an EC2 Auto Scaling group"],
            ["gcp", "a Cloud Run service"],
          ]}
        />
        {link !== "none" && (
          <CredentialSelect
            kind={ENDPOINT_LINK_CREDENTIAL[link]}
            path="linked.credential"
            value={value("linked.credential")}
            onChange={set("linked.credential")}
            credentials={p.credentials}
            errors={p.errors}
          />
        )}
        {link === "kubernetes" && (
          <>
            {text("Namespace", "linked.namespace")}
            {text("Deployment", "linked.deployment")}
          </>
        )}
        {link === "aws" && (
          <>
            {text("Auto Scaling group", "linked.autoScalingGroupName")}
            {text("ALB dimension", "linked.loadBalancer", { placeholder: "app/<name>/<id>", hint: "for its request counts" })}
            {text("Region", "linked.region", { placeholder: "us-east-1" })}
          </>
        )}
        {link === "gcp" && (
          <>
            {text("Cloud Run service", "linked.cloudRunService")}
            {text("Project", "linked.projectId", { placeholder: "the credential's" })}
            {text("Region", "linked.region", { placeholder: "europe-west1" })}
          </>
        )}
      </FormSection>
    </>
  );
}
