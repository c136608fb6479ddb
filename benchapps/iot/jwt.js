// JSON Web Tokens, HS256 only, with node:crypto (no dependency): the study's IoT
// core signed user, device and consumer keys as JWTs.
import { createHmac, timingSafeEqual } from "node:crypto";

const b64url = (buf) => Buffer.from(buf).toString("base64url");
const HEADER = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));

export function signJwt(payload, secret) {
  const body = `${HEADER}.${b64url(JSON.stringify(payload))}`;
  return `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`;
}

/** The payload of a valid token, or null (bad shape, other algorithm, bad signature, expired). */
export function verifyJwt(token, secret) {
  const parts = typeof token === "string" ? token.split(".") : [];
  if (parts.length !== 3) return null;
  const [header, payload, signature] = parts;
  try {
    if (JSON.parse(Buffer.from(header, "base64url").toString()).alg !== "HS256") return null;
    const want = createHmac("sha256", secret).update(`${header}.${payload}`).digest();
    const got = Buffer.from(signature, "base64url");
    if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    if (typeof claims.exp === "number" && claims.exp * 1000 < Date.now()) return null;
    return claims;
  } catch {
    return null;
  }
}

/** The token of an `Authorization: Bearer <token>` header (or a bare token). */
export function bearer(header) {
  if (typeof header !== "string") return null;
  return header.startsWith("Bearer ") ? header.slice(7).trim() : header.trim();
}
