import { FormSection } from "@/features/targets/target-form/form-section";
import type { KindFieldsProps } from "./kind-props";
import { AccountFields, LoadAndMetricsFields } from "./platform-fields";

/** gcp-cloud-run: a Cloud Run service of an image, with its concurrency, instances, CPU and memory. */
export function GcpCloudRunFields(p: KindFieldsProps) {
  const { num, text, pick } = p.inputs;
  return (
    <>
      <AccountFields {...p} kind="gcp" regionHint="e.g. europe-west1" />
      <FormSection title="Service">
        {text("Project", "projectId", { placeholder: "the credential's", hint: "optional" })}
        {text("Image", "image", { placeholder: "europe-docker.pkg.dev/p/r/app:1", wide: true })}
        {num("Port", "port")}
        {num("Concurrency", "concurrency", { hint: "requests one instance serves at once" })}
        {num("Min instances", "minInstances", { hint: "0 = scale to zero" })}
        {num("Max instances", "maxInstances")}
        {text("CPU (vCPU)", "cpu", { hint: 'e.g. "1", "2" or "500m"' })}
        {num("Memory (MiB)", "memoryMb")}
        {pick("CPU throttling", "cpuThrottling", ["true", "false"], "on (default): CPU only during requests", {
          labels: { true: "on: CPU only during requests", false: "off: CPU always allocated" },
        })}
      </FormSection>
      <LoadAndMetricsFields {...p} ownAddress="the service's run.app URL" />
    </>
  );
}
