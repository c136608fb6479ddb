// The body of every refused request (lib/api/errors.ts): a closed code, a message, and the input paths at fault.
import { z } from "zod";

export const errorCodeSchema = z.enum(["unauthorized", "forbidden", "invalid_input", "not_found", "conflict", "internal"]);
export type ErrorCode = z.infer<typeof errorCodeSchema>;
export const ERROR_STATUS = {
  unauthorized: 401,
  forbidden: 403,
  invalid_input: 422,
  not_found: 404,
  conflict: 409,
  internal: 500,
} as const satisfies Record<ErrorCode, number>;

export const apiIssueSchema = z.strictObject({
  /** Dotted path into the input, e.g. "spec.replicas"; "" for the input as a whole. */
  path: z.string(),
  message: z.string(),
});
export type ApiIssue = z.infer<typeof apiIssueSchema>;

export const apiErrorBodySchema = z.strictObject({
  error: z.strictObject({
    code: errorCodeSchema,
    message: z.string(),
    issues: z.array(apiIssueSchema).optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
