// Checks every /api/v1 mutation passes before its handler runs: a browser's cross-site request is refused
// (a page elsewhere must not act with the user's cookies), and a body must be declared JSON: a `text/plain`
// POST, which any page can send without a preflight, is refused with 415 rather than parsed.
import { ApiError } from "./api-error";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Request bodies larger than this are refused with 413 (a k6 script may be up to 1,000,000 characters). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/**
 * The body limit of a route that saves a k6 script with its files (workloads, studies): the instance's cap on the
 * files (OPSBENCH_MAX_SCRIPT_FILES_BYTES), as base64 (4/3), plus the source and the rest of the body; never below
 * MAX_BODY_BYTES. Elsewhere MAX_BODY_BYTES.
 */
export function bodyLimitFor(pathname: string, scriptFilesCap: number): number {
  if (pathname !== "/api/v1/workloads" && pathname !== "/api/v1/studies") return MAX_BODY_BYTES;
  return Math.max(MAX_BODY_BYTES, Math.ceil((scriptFilesCap * 4) / 3) + MAX_BODY_BYTES);
}

/** The origin the client used (behind a proxy: the forwarded host and protocol). */
export function originOf(request: Request): string {
  const url = new URL(request.url);
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  const proto = request.headers.get("x-forwarded-proto") ?? url.protocol.replace(/:$/, "");
  return host ? `${proto}://${host}` : url.origin;
}

const isJsonType = (contentType: string) => /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType.trim());

/** Whether the request carries a body (a declared length above zero, or a chunked one). */
const hasBody = (request: Request) => {
  const length = request.headers.get("content-length");
  return length !== null ? Number(length) > 0 : request.headers.has("transfer-encoding");
};

export function assertSafeMutation(request: Request, limit = MAX_BODY_BYTES): void {
  if (SAFE_METHODS.has(request.method)) return;
  // Cookies go with cross-site requests; a token in Authorization does not, so only cookie auth needs the Origin check.
  const cookieAuth = request.headers.has("cookie") && !request.headers.has("authorization");
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== originOf(request))
    throw new ApiError("forbidden", `cross-site request refused: Origin ${origin} is not this server`);
  if (cookieAuth && origin === null && request.headers.get("sec-fetch-site") !== "same-origin")
    throw new ApiError("forbidden", "a request signed in with a cookie must come from this server's pages (no Origin header)");
  const contentType = request.headers.get("content-type");
  if (contentType !== null ? !isJsonType(contentType) : hasBody(request))
    throw new ApiError(
      "unsupported_media_type",
      `request bodies must be JSON (Content-Type: application/json), not ${contentType ?? "untyped"}`,
    );
  const length = Number(request.headers.get("content-length") ?? 0);
  if (length > limit) throw tooLarge(limit);
}

export const tooLarge = (limit = MAX_BODY_BYTES) => new ApiError("payload_too_large", `the request body is larger than ${limit} bytes`);

/** The body as text, stopping (413) as soon as it passes the limit (MAX_BODY_BYTES by default), whatever Content-Length claimed. */
export async function readCappedText(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
