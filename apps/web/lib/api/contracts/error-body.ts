// The body of every refused request: in @opsbench/api (packages/api/src/error-body.ts), shared with the CLI.
export {
  type ApiErrorBody,
  type ApiIssue,
  apiErrorBodySchema,
  apiIssueSchema,
  ERROR_STATUS,
  type ErrorCode,
  errorCodeSchema,
} from "@opsbench/api";
