// AES-256-GCM for the workspaces' credentials (credentials table). The key is OPSBENCH_SECRET_KEY (32 bytes);
// the associated data binds a sealed value to its workspace and name, so a row's secret copied onto another
// row does not open. Format: "v1.<iv>.<tag>.<ciphertext>", each base64url.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { secretKeyBytes } from "@opsbench/core";

/** The key is missing or wrong: a setup problem the message explains. */
export class SecretKeyError extends Error {}

const VERSION = "v1";

function keyOf(secretKey: string | undefined): Buffer {
  if (!secretKey) throw new SecretKeyError("OPSBENCH_SECRET_KEY is not set: credentials cannot be stored or read (docs/self-hosting.md)");
  const bytes = secretKeyBytes(secretKey);
  if (!bytes) throw new SecretKeyError("OPSBENCH_SECRET_KEY is not 32 bytes as 64 hex digits or base64");
  return Buffer.from(bytes);
}

/** What a sealed value is bound to (AES-GCM associated data). */
export const sealContext = (workspaceId: string, name: string) => `${workspaceId}/${name}`;

export function sealSecret(plain: string, secretKey: string | undefined, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(secretKey), iv);
  cipher.setAAD(Buffer.from(context));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), data].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
}

export function openSecret(sealed: string, secretKey: string | undefined, context: string): string {
  const [version, iv, tag, data] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || data === undefined) throw new SecretKeyError("the stored credential is not in a known format");
  const decipher = createDecipheriv("aes-256-gcm", keyOf(secretKey), Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  try {
    return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretKeyError("the stored credential does not open with OPSBENCH_SECRET_KEY (was the key changed?)");
  }
}
