// A kubeconfig as opsbench accepts it: the YAML parsed to a plain object (no aliases, no merge keys), then judged
// by a strict schema that holds only what the file itself carries (server, CA data, client certificate and key
// data, a token, a username and password), never a field that names a file, a command, an auth provider, a proxy
// or an identity to impersonate. Only after that does the Kubernetes library get a kubeconfig, built from the
// validated object (packages/providers kube-client.ts, loadFromOptions), never the user's text.
// Used by the API (a 422 before the credential is sealed) and by the worker (before every client it makes).
// Messages name the field's path and never quote a value of the file (a token, a key).
import { isAlias, isMap, isPair, isScalar, parseDocument, visit } from "yaml";
import { z } from "zod";

/** The kubeconfig the library is given: only the chosen context, its cluster and its user (the library's field names). */
export interface ValidKubeconfig {
  context: { name: string; cluster: string; user: string; namespace?: string };
  cluster: { name: string; server: string; caData?: string; skipTLSVerify: boolean; tlsServerName?: string };
  user: { name: string; certData?: string; keyData?: string; token?: string; username?: string; password?: string };
}

export type KubeconfigVerdict = { ok: true; config: ValidKubeconfig } | { ok: false; message: string };

/** Keys people reach for that would make a client read a file, run a program, go through a proxy or impersonate. */
const FILE_OR_PROGRAM_KEYS = new Set([
  "token-file",
  "tokenFile",
  "client-certificate",
  "client-key",
  "certificate-authority",
  "exec",
  "auth-provider",
  "proxy-url",
  "as",
  "as-uid",
  "as-groups",
  "as-user-extra",
]);

const ACCEPTED =
  "opsbench accepts only what the kubeconfig itself holds (server, certificate-authority-data, insecure-skip-tls-verify, " +
  "tls-server-name; client-certificate-data and client-key-data, a token, or username and password), never file paths, " +
  "commands, auth providers, proxies or impersonation";

/** A key as a message may show it: only when it looks like a key (a value pasted as a key is not echoed). */
const shownKey = (key: PropertyKey) => {
  const s = String(key);
  return /^[A-Za-z0-9_.<>-]{1,64}$/.test(s) ? `"${s}"` : "a key";
};

/** No control character (C0, DEL, C1). */
const noControl = /^\P{Cc}*$/u;
const name = z.string().min(1, "must not be empty").max(253, "is longer than 253 characters").regex(noControl, "has a control character");
const base64Data = z
  .string()
  .max(256_000, "is too long")
  .regex(/^[A-Za-z0-9+/=\s]+$/, "must be base64 data (the file's content itself, not a path)");
/** A bearer token goes into an HTTP header: visible ASCII only (no space, line break or control character). */
const token = z
  .string()
  .min(1, "must not be empty")
  .max(16_384, "is longer than 16384 characters")
  .regex(/^[!-~]+$/, "must be visible ASCII characters only (no spaces, line breaks or control characters)");
const basicPart = z.string().max(1024, "is too long").regex(noControl, "has a control character");
const serverUrl = z
  .string()
  .max(2048, "is too long")
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password && !u.search && !u.hash;
    } catch {
      return false;
    }
  }, "must be an http(s) URL without credentials, query or fragment");
const hostName = z
  .string()
  .max(253, "is longer than 253 characters")
  .regex(/^[A-Za-z0-9.-]+$/, "must be a host name");
const extensions = z.array(z.unknown()).nullish();

const clusterFields = z.strictObject({
  server: serverUrl,
  "certificate-authority-data": base64Data.optional(),
  "insecure-skip-tls-verify": z.boolean().optional(),
  "tls-server-name": hostName.optional(),
  "disable-compression": z.boolean().optional(),
  extensions,
});
const userFields = z.strictObject({
  "client-certificate-data": base64Data.optional(),
  "client-key-data": base64Data.optional(),
  token: token.optional(),
  username: basicPart.optional(),
  password: basicPart.optional(),
  extensions,
});
const contextFields = z.strictObject({
  cluster: name,
  user: name.optional(),
  namespace: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, "must be a namespace name")
    .optional(),
  extensions,
});

export const kubeconfigSchema = z.strictObject({
  apiVersion: z.literal("v1").optional(),
  kind: z.literal("Config").optional(),
  preferences: z.strictObject({ colors: z.boolean().optional(), extensions }).nullish(),
  clusters: z.array(z.strictObject({ name, cluster: clusterFields })).min(1, "the kubeconfig has no clusters"),
  users: z.array(z.strictObject({ name, user: userFields.nullish() })).nullish(),
  contexts: z.array(z.strictObject({ name, context: contextFields })).min(1, "the kubeconfig has no contexts"),
  "current-context": z.string().nullish(),
  extensions,
});
export type KubeconfigObject = z.infer<typeof kubeconfigSchema>;

/** `users[0].user` from zod's path ["users", 0, "user"]. */
function pathText(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const p of path)
    out += typeof p === "number" ? `[${p}]` : `${out ? "." : ""}${/^[A-Za-z0-9_-]+$/.test(String(p)) ? String(p) : "?"}`;
  return out || "the kubeconfig";
}

function issueMessage(issue: z.core.$ZodIssue): string {
  const where = pathText(issue.path);
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys;
    const hint = keys.some((k) => FILE_OR_PROGRAM_KEYS.has(k)) ? "" : " (an unknown field)";
    return `${where}: ${keys.map(shownKey).join(", ")} ${keys.length > 1 ? "are" : "is"} not accepted${hint}: ${ACCEPTED}`;
  }
  if (issue.code === "invalid_type") {
    const missing = issue.input === undefined;
    return `${where}: ${missing ? "is missing" : `must be ${issue.expected === "object" ? "a mapping" : issue.expected === "array" ? "a list" : `a ${issue.expected}`}`}`;
  }
  if (issue.code === "invalid_value") return `${where}: must be ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}`;
  // Our own messages (above) and zod's size messages name no value.
  return `${where}: ${issue.message}`;
}

/** The YAML parsed to plain data, refusing aliases, merge keys, several documents and YAML errors (by position only). */
function parseYaml(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const doc = parseDocument(text, { merge: false, uniqueKeys: true, prettyErrors: true, strict: true });
  const error = doc.errors[0];
  if (error) {
    // The parser's own message may quote the line (a token): only the kind of error and its position are kept.
    const at = error.linePos?.[0];
    return { ok: false, message: `the kubeconfig is not valid YAML (${error.code}${at ? ` at line ${at.line}, column ${at.col}` : ""})` };
  }
  let refused: string | null = null;
  visit(doc, {
    Alias() {
      refused = "the kubeconfig uses a YAML alias (*name): opsbench reads kubeconfigs without aliases; write the values out";
      return visit.BREAK;
    },
    Pair(_, pair) {
      if (
        isPair(pair) &&
        isScalar(pair.key) &&
        (pair.key.source === "<<" || String(pair.key.value) === "<<" || typeof pair.key.value === "symbol")
      ) {
        refused = "the kubeconfig uses a YAML merge key (<<): opsbench reads kubeconfigs without merge keys; write the values out";
        return visit.BREAK;
      }
      if (isPair(pair) && pair.key !== null && !isScalar(pair.key)) {
        refused = "the kubeconfig has a key that is not a plain string (a complex mapping key)";
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (refused) return { ok: false, message: refused };
  if (isAlias(doc.contents)) return { ok: false, message: "the kubeconfig uses a YAML alias" };
  if (!isMap(doc.contents)) return { ok: false, message: "the kubeconfig is not a YAML mapping: is it a kubeconfig file?" };
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 0 }) };
  } catch {
    return { ok: false, message: "the kubeconfig could not be read as plain data (aliases and custom tags are not accepted)" };
  }
}

/**
 * Parses and judges a kubeconfig; on success, the context to use (`context`, else its current-context) with its
 * cluster and user, as the library will get them. On failure, one message naming the field's path.
 */
export function validateKubeconfig(text: string, context?: string): KubeconfigVerdict {
  const parsed = parseYaml(text);
  if (!parsed.ok) return parsed;
  const checked = kubeconfigSchema.safeParse(parsed.value);
  if (!checked.success) return { ok: false, message: checked.error.issues.slice(0, 3).map(issueMessage).join("; ") };
  const cfg = checked.data;
  const contextName = context ?? cfg["current-context"] ?? undefined;
  if (!contextName) return { ok: false, message: "the kubeconfig has no current-context; name one in the credential's context" };
  const ctx = cfg.contexts.find((c) => c.name === contextName);
  if (!ctx)
    return {
      ok: false,
      message: `the kubeconfig has no context "${contextName}" (it has: ${cfg.contexts.map((c) => c.name).join(", ")})`,
    };
  const cluster = cfg.clusters.find((c) => c.name === ctx.context.cluster);
  if (!cluster) return { ok: false, message: `the kubeconfig's context "${contextName}" names no cluster with a server address` };
  const userName = ctx.context.user;
  const user = userName === undefined ? undefined : cfg.users?.find((u) => u.name === userName);
  if (userName !== undefined && !user)
    return { ok: false, message: `the kubeconfig's context "${contextName}" names user "${userName}", which it does not have` };
  const u = user?.user ?? {};
  if ((u["client-certificate-data"] === undefined) !== (u["client-key-data"] === undefined))
    return { ok: false, message: `the kubeconfig's user "${userName}" needs both client-certificate-data and client-key-data` };
  if ((u.username === undefined) !== (u.password === undefined))
    return { ok: false, message: `the kubeconfig's user "${userName}" needs both username and password` };
  const c = cluster.cluster;
  return {
    ok: true,
    config: {
      context: {
        name: contextName,
        cluster: cluster.name,
        user: userName ?? "",
        ...(ctx.context.namespace ? { namespace: ctx.context.namespace } : {}),
      },
      cluster: {
        name: cluster.name,
        server: c.server.replace(/\/+$/, ""),
        skipTLSVerify: c["insecure-skip-tls-verify"] === true,
        ...(c["certificate-authority-data"] ? { caData: c["certificate-authority-data"] } : {}),
        ...(c["tls-server-name"] ? { tlsServerName: c["tls-server-name"] } : {}),
      },
      user: {
        name: userName ?? "",
        ...(u["client-certificate-data"] ? { certData: u["client-certificate-data"] } : {}),
        ...(u["client-key-data"] ? { keyData: u["client-key-data"] } : {}),
        ...(u.token ? { token: u.token } : {}),
        ...(u.username !== undefined ? { username: u.username, password: u.password } : {}),
      },
    },
  };
}
