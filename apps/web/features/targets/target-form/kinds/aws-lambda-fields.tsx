import { LAMBDA_APPS } from "@opsbench/core";
import { FormSection } from "@/features/targets/target-form/form-section";
import { LAMBDA_RUNTIMES } from "./aws-lambda-spec";
import type { KindFieldsProps } from "./kind-props";
import { AccountFields, LoadAndMetricsFields } from "./platform-fields";

/** aws-lambda: a function packaged from benchapps/ with a function URL. */
export function AwsLambdaFields(p: KindFieldsProps) {
  const { num, text, pick } = p.inputs;
  return (
    <>
      <AccountFields {...p} kind="aws" regionHint="e.g. eu-west-1" />
      <FormSection title="Function">
        {pick("App (benchapps/)", "app", LAMBDA_APPS)}
        {pick("Runtime", "runtime", LAMBDA_RUNTIMES)}
        {num("Memory (MB)", "memoryMb", { hint: "128..10240; CPU grows with it" })}
        {num("Timeout (s)", "timeoutSeconds")}
        {num("Reserved concurrency", "reservedConcurrency", { placeholder: "none", hint: "a cap on instances" })}
        {text("Execution role ARN", "roleArn", {
          placeholder: "arn:aws:iam::123456789012:role/opsbench-lambda",
          hint: "the role the function runs as (Lambda needs one)",
          wide: true,
        })}
      </FormSection>
      <LoadAndMetricsFields {...p} ownAddress="the function URL" />
    </>
  );
}
