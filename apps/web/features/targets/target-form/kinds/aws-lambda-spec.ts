import { awsLambdaSpec } from "@opsbench/core";
import { type FieldType, type SpecValues, specFromValues } from "@/features/targets/target-form/spec-values";
import { PLATFORM_FIELDS, platformLines } from "./platform-spec";

export const AWS_LAMBDA_FIELDS = {
  ...PLATFORM_FIELDS,
  app: "text",
  runtime: "text",
  memoryMb: "int",
  timeoutSeconds: "int",
  reservedConcurrency: "int",
  roleArn: "text",
} satisfies Record<string, FieldType>;

/** The runtimes the spec accepts. */
export const LAMBDA_RUNTIMES = awsLambdaSpec.shape.runtime.unwrap().options;

export const buildAwsLambdaSpec = (v: SpecValues) => specFromValues(v, AWS_LAMBDA_FIELDS);

export function describeAwsLambda(spec: unknown): string[] | null {
  const r = awsLambdaSpec.safeParse(spec);
  if (!r.success) return null;
  const s = r.data;
  return [
    `function opsbench-<run>: ${s.code ? "your package" : (s.app ?? "echo/lambda")} on ${s.runtime}, ${s.memoryMb} MB, timeout ${s.timeoutSeconds} s, with a function URL`,
    s.reservedConcurrency === undefined ? "no reserved concurrency (the account's pool)" : `reserved concurrency ${s.reservedConcurrency}`,
    `runs as ${s.roleArn}`,
    ...platformLines(s, "the function URL"),
  ];
}
