// The API's one error type: a closed code (its HTTP status in @opsbench/api, error-body.ts), a message, the input paths at fault.
// A leaf module, so the request guard and the route wrapper can both throw it.
import { NextResponse } from "next/server";
import { type ApiErrorBody, type ApiIssue, ERROR_STATUS, type ErrorCode } from "@opsbench/api";

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: ApiIssue[],
  ) {
    super(message);
    this.name = "ApiError";
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
  toResponse() {
    const body: ApiErrorBody = { error: { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) } };
    return NextResponse.json(body, { status: this.status });
  }
}
