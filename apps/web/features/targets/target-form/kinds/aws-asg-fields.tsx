import { FormSection } from "@/features/targets/target-form/form-section";
import type { KindFieldsProps } from "./kind-props";
import { AccountFields, LoadAndMetricsFields } from "./platform-fields";

/** aws-asg: instances from a launch template behind an ALB, an Auto Scaling group with target tracking on CPU. */
export function AwsAsgFields(p: KindFieldsProps) {
  const { num, text, area } = p.inputs;
  return (
    <>
      <AccountFields {...p} kind="aws" regionHint="e.g. eu-west-1" />
      <FormSection title="Instances">
        {text("AMI", "imageId", { placeholder: "ami-0123456789abcdef0", hint: "it must serve the app on the port" })}
        {text("Instance type", "instanceType")}
        {num("Port", "port")}
        {text("Health check path", "healthCheckPath")}
        {area("User data (cloud-init script, optional)", "userData", { rows: 3 })}
      </FormSection>
      <FormSection title="Auto Scaling group">
        {num("Min instances", "minSize")}
        {num("Max instances", "maxSize")}
        {num("Target tracking (% CPU)", "targetCpuPercent", { step: "any", hint: "average CPU of the group" })}
        {num("Warm-up (s)", "warmupSeconds", { hint: "before a new instance's metrics count" })}
        {text("Subnets (optional)", "subnetIds", { placeholder: "default VPC's", hint: "subnet-… ids, comma-separated", wide: true })}
      </FormSection>
      <LoadAndMetricsFields {...p} ownAddress="the ALB's DNS name" />
    </>
  );
}
