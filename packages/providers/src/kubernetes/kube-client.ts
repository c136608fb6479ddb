// A small client of the Kubernetes REST API over node:https, for a workspace's kubeconfig. Not
// @kubernetes/client-node at run time: its 2.x needs undici 8, which does not load on Node 20 (opsbench's
// runtime); its types are still used (`import type`). Only what the kubeconfig itself holds is used: one naming
// files on the worker (client-certificate, token-file...), commands (exec, auth-provider) or a proxy is refused
// before anything is read, since the user could otherwise make the worker read its files or run a program.
import http from "node:http";
import https from "node:https";
import type { CredentialSecret } from "@opsbench/core";
import { parse as parseYaml } from "yaml";
import { ProviderError } from "../provider";

type KubernetesSecret = Extract<CredentialSecret, { kind: "kubernetes" }>;

const REFUSED_KEYS = [
  "token-file",
  "tokenFile",
  "client-certificate",
  "client-key",
  "certificate-authority",
  "exec",
  "auth-provider",
  "proxy-url",
];
const refusedKey = new RegExp(`(?:^|[\\s{,])["']?(${REFUSED_KEYS.join("|")})["']?\\s*:`, "m");
const CALL_TIMEOUT_MS = 15_000;

/** A non-2xx answer: its status and the API's own reason (never headers or credentials). */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}
export const isNotFound = (err: unknown) => err instanceof KubeApiError && err.status === 404;
export const isConflict = (err: unknown) => err instanceof KubeApiError && err.status === 409;

interface Named<T> {
  name?: string;
  cluster?: T;
  user?: T;
  context?: T;
}
interface RawConfig {
  clusters?: Named<Record<string, unknown>>[];
  users?: Named<Record<string, unknown>>[];
  contexts?: Named<Record<string, unknown>>[];
  "current-context"?: string;
}

const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : undefined);
const b64 = (v: unknown) => (str(v) ? Buffer.from(str(v) as string, "base64") : undefined);

export interface KubeClient {
  server: string;
  userName: string;
  /** JSON in, JSON out; throws KubeApiError for an answer that is not 2xx, ProviderError when the cluster cannot be reached. */
  request<T>(
    method: string,
    path: string,
    opts?: { body?: unknown; contentType?: string; signal?: AbortSignal; doing?: string },
  ): Promise<T>;
}

export function kubeClientOf(secret: KubernetesSecret): KubeClient {
  const refused = refusedKey.exec(secret.kubeconfig)?.[1];
  if (refused)
    throw new ProviderError(
      `the kubeconfig uses "${refused}": opsbench accepts only what the file itself holds (certificate-authority-data, client-certificate-data and client-key-data, or a token such as a service account's), never file paths, commands or proxies`,
    );
  let raw: RawConfig;
  try {
    raw = (parseYaml(secret.kubeconfig) ?? {}) as RawConfig;
  } catch (err) {
    // The parser's message quotes the offending line, which may hold a token: only its position is kept.
    const pos = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new ProviderError(`the kubeconfig is not valid YAML${pos ? ` (at line ${pos.line}, column ${pos.col})` : ""}`);
  }
  if (typeof raw !== "object" || !Array.isArray(raw.contexts))
    throw new ProviderError("the kubeconfig has no contexts: is it a kubeconfig file?");
  const contextName = secret.context ?? raw["current-context"];
  if (!contextName) throw new ProviderError("the kubeconfig has no current-context; name one in the credential's context");
  const context = raw.contexts.find((c) => c.name === contextName)?.context;
  if (!context)
    throw new ProviderError(
      `the kubeconfig has no context "${contextName}" (it has: ${raw.contexts.map((c) => c.name).join(", ") || "none"})`,
    );
  const clusterName = str(context.cluster);
  const cluster = raw.clusters?.find((c) => c.name === clusterName)?.cluster;
  const server = str(cluster?.server);
  if (!cluster || !server) throw new ProviderError(`the kubeconfig's context "${contextName}" names no cluster with a server address`);
  const userName = str(context.user) ?? "";
  const user = raw.users?.find((u) => u.name === userName)?.user ?? {};
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new ProviderError(`the kubeconfig's server "${server}" is not a URL`);
  }
  const tls = {
    ca: b64(cluster["certificate-authority-data"]),
    cert: b64(user["client-certificate-data"]),
    key: b64(user["client-key-data"]),
    rejectUnauthorized: cluster["insecure-skip-tls-verify"] !== true,
    servername: str(cluster["tls-server-name"]),
  };
  const token = str(user.token);
  const basic = str(user.username) && str(user.password) ? Buffer.from(`${user.username}:${user.password}`).toString("base64") : undefined;
  const auth = token ? `Bearer ${token}` : basic ? `Basic ${basic}` : undefined;
  const base = server.replace(/\/+$/, "");

  const request: KubeClient["request"] = (method, path, opts = {}) =>
    new Promise((resolve, reject) => {
      const doing = opts.doing ?? `${method} ${path.split("?")[0]}`;
      const body = opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
      const target = new URL(`${base}${path}`);
      const headers: Record<string, string> = { accept: "application/json" };
      if (auth) headers.authorization = auth;
      if (body !== undefined) headers["content-type"] = opts.contentType ?? "application/json";
      const lib = url.protocol === "https:" ? https : http;
      const req = lib.request(target, { method, headers, ...(url.protocol === "https:" ? tls : {}), signal: opts.signal }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          let json: unknown = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {}
          if (status >= 200 && status < 300) return resolve(json as never);
          const message = (json as { message?: unknown } | null)?.message;
          reject(new KubeApiError(status, typeof message === "string" ? message : `HTTP ${status}`));
        });
      });
      req.setTimeout(CALL_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${CALL_TIMEOUT_MS / 1000} s`)));
      req.on("error", (err) =>
        reject(
          opts.signal?.aborted
            ? new ProviderError(`aborted while ${doing}`)
            : new ProviderError(`cannot reach the cluster at ${server} (${doing}): ${err.message}`),
        ),
      );
      if (body !== undefined) req.write(body);
      req.end();
    });
  return { server, userName, request };
}

/** A KubeApiError as a message for the user: what was being done, where, and the API's reason. 404/409 are left to the caller. */
export function explainKubeError(client: KubeClient, doing: string, err: unknown): Error {
  if (!(err instanceof KubeApiError)) return err as Error;
  const who =
    err.status === 401 ? "the kubeconfig's credentials were not accepted" : err.status === 403 ? "forbidden" : `HTTP ${err.status}`;
  return new ProviderError(`the cluster at ${client.server} refused ${doing}: ${who} (${err.reason})`);
}

/** request(), with a refusal explained (explainKubeError). */
export async function kubeCall<T>(
  client: KubeClient,
  doing: string,
  method: string,
  path: string,
  opts: { body?: unknown; contentType?: string; signal?: AbortSignal } = {},
): Promise<T> {
  try {
    return await client.request<T>(method, path, { ...opts, doing });
  } catch (err) {
    if (isNotFound(err) || isConflict(err)) throw err;
    throw explainKubeError(client, doing, err);
  }
}
