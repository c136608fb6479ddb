// The body of every refused request (lib/api/errors.ts): a closed code, a message, and the input paths at fault.
import { z } from "zod";

export const errorCodeSchema = z.enum([
  "unauthorized",
  "forbidden",
  "invalid_input",
  "not_found",
  "conflict",
  "internal",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
]);
export type ErrorCode = z.infer<typeof errorCodeSchema>;
export const ERROR_STATUS = {
  unauthorized: 401,
  /** A role too low for the route, or a cross-site mutation (its Origin is not this server's). */
  forbidden: 403,
  invalid_input: 422,
  not_found: 404,
  conflict: 409,
  internal: 500,
  payload_too_large: 413,
  /** A mutation whose body is not declared JSON (e.g. text/plain, which any page may send without a preflight). */
  unsupported_media_type: 415,
  rate_limited: 429,
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
