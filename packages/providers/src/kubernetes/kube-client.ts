// The Kubernetes API clients of @kubernetes/client-node 2.x (undici's fetch; it needs Node 22.19 or newer)
// for a workspace's kubeconfig. Only what the kubeconfig itself holds is used: one naming files on the worker
// (client-certificate, token-file...), commands (exec, auth-provider) or a proxy is refused before the library
// reads it, since the user could otherwise make the worker read its files or run a program.
import type {
  ApiException,
  AppsV1Api,
  AuthorizationV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PortForward,
} from "@kubernetes/client-node";
import type { CredentialSecret } from "@opsbench/core";
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

type Library = typeof import("@kubernetes/client-node");
let library: Library | undefined;
/** The library, loaded on first use: it is large (about a second to import), and most runs never talk to a cluster. */
const loadLibrary = async (): Promise<Library> => (library ??= await import("@kubernetes/client-node"));

/** The library's error for an answer that is not 2xx (a transport failure is a ProviderError already). */
const isApiException = (err: unknown): err is ApiException<unknown> => library !== undefined && err instanceof library.ApiException;

/** A refusal of the API, explained (kubeCall): what was being done, where, the API's reason and the code. */
export class KubeApiError extends ProviderError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
export const isNotFound = (err: unknown) => err instanceof KubeApiError && err.status === 404;
export const isConflict = (err: unknown) => err instanceof KubeApiError && err.status === 409;

/** The library's typed clients for one kubeconfig; every request ends with the signal given to kubeClientOf. */
export interface KubeClient {
  server: string;
  userName: string;
  core: CoreV1Api;
  apps: AppsV1Api;
  autoscaling: AutoscalingV2Api;
  authorization: AuthorizationV1Api;
  /** Any object by its apiVersion/kind (the user's manifests). */
  objects: KubernetesObjectApi;
  /** Port-forwards to pods through the API server (a WebSocket each; port-forward.ts). */
  portForward: PortForward;
}

const refusal = (what: string) =>
  new ProviderError(
    `the kubeconfig uses "${what}": opsbench accepts only what the file itself holds (certificate-authority-data, client-certificate-data and client-key-data, or a token such as a service account's), never file paths, commands or proxies`,
  );

/** The kubeconfig loaded by the library, after refusing what would make it read a file or run a program. */
function loadKubeconfig(lib: Library, secret: KubernetesSecret): KubeConfig {
  const refused = refusedKey.exec(secret.kubeconfig)?.[1];
  if (refused) throw refusal(refused);
  const kc = new lib.KubeConfig();
  try {
    kc.loadFromString(secret.kubeconfig);
  } catch (err) {
    // The YAML parser's message quotes the offending line, which may hold a token: only its position is kept.
    const mark = (err as { mark?: { line: number; column: number } }).mark;
    if (mark) throw new ProviderError(`the kubeconfig is not valid YAML (at line ${mark.line + 1}, column ${mark.column + 1})`);
    // YAML that is not a mapping (a bare string, nothing).
    if (err instanceof TypeError) throw new ProviderError("the kubeconfig has no contexts: is it a kubeconfig file?");
    throw new ProviderError(`the kubeconfig is not a kubeconfig: ${(err as Error).message}`);
  }
  // The same refusal on what the library parsed, whatever spelling got past the text check.
  for (const u of kc.getUsers()) {
    if (u.exec) throw refusal("exec");
    if (u.authProvider) throw refusal("auth-provider");
    if (u.certFile || u.keyFile) throw refusal("client-certificate");
  }
  for (const c of kc.getClusters()) {
    if (c.caFile) throw refusal("certificate-authority");
    if (c.proxyUrl) throw refusal("proxy-url");
  }
  const contexts = kc.getContexts();
  if (contexts.length === 0) throw new ProviderError("the kubeconfig has no contexts: is it a kubeconfig file?");
  const contextName = secret.context ?? kc.getCurrentContext();
  if (!contextName) throw new ProviderError("the kubeconfig has no current-context; name one in the credential's context");
  if (!kc.getContextObject(contextName))
    throw new ProviderError(`the kubeconfig has no context "${contextName}" (it has: ${contexts.map((c) => c.name).join(", ")})`);
  kc.setCurrentContext(contextName);
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new ProviderError(`the kubeconfig's context "${contextName}" names no cluster with a server address`);
  try {
    new URL(cluster.server);
  } catch {
    throw new ProviderError(`the kubeconfig's server "${cluster.server}" is not a URL`);
  }
  // The library sends no token over plain http unless the kubeconfig says so; its own message names neither.
  if (cluster.server.startsWith("http:") && !cluster.skipTLSVerify)
    throw new ProviderError(
      `the kubeconfig's server ${cluster.server} is plain http: set insecure-skip-tls-verify: true on its cluster to use it anyway`,
    );
  return kc;
}

/**
 * The library's own fetch transport (undici's fetch) with a deadline: the request, its body included, ends when
 * `signal` aborts or after CALL_TIMEOUT_MS. The library gives each request a dispatcher of its own when the
 * kubeconfig has TLS settings (an undici Agent holding its keep-alive connection): it is closed once the call is
 * over, so that no connection outlives its call.
 */
function transport(lib: Library, server: string, signal: AbortSignal | undefined) {
  const fetchLibrary = new lib.IsomorphicFetchHttpLibrary();
  return lib.wrapHttpLibrary({
    async send(request) {
      const doing = `${request.getHttpMethod()} ${new URL(request.getUrl()).pathname}`;
      if (signal?.aborted) throw new ProviderError(`aborted before ${doing}`);
      const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
      request.setSignal(signal ? AbortSignal.any([signal, timeout]) : timeout);
      try {
        const response = await fetchLibrary.send(request).toPromise();
        const text = await response.body.text();
        return new lib.ResponseContext(response.httpStatusCode, response.headers, {
          text: async () => text,
          binary: async () => Buffer.from(text),
          stream: () => null,
        });
      } catch (err) {
        if (signal?.aborted) throw new ProviderError(`aborted while ${doing}`);
        // undici says "fetch failed" and puts the reason (e.g. "connect ECONNREFUSED 127.0.0.1:6443") in its cause.
        const cause = (err as Error & { cause?: unknown }).cause;
        const said = cause instanceof Error && cause.message ? cause.message : (err as Error).message;
        const reason = timeout.aborted
          ? `no answer within ${CALL_TIMEOUT_MS / 1000} s`
          : said === "bad port" // e.g. 6000, 6665-6669, 10080: fetch refuses them whatever listens there
            ? `port ${new URL(request.getUrl()).port} is one of the fetch standard's blocked ports (${said})`
            : said;
        throw new ProviderError(`cannot reach the cluster at ${server} (${doing}): ${reason}`);
      } finally {
        request
          .getDispatcher()
          ?.destroy()
          .catch(() => {});
      }
    },
  });
}

/** The clients for a workspace's kubeconfig; throws a ProviderError naming what is wrong with it. */
export async function kubeClientOf(secret: KubernetesSecret, signal?: AbortSignal): Promise<KubeClient> {
  const lib = await loadLibrary();
  const kc = loadKubeconfig(lib, secret);
  const server = kc.getCurrentCluster()?.server ?? "";
  // What kc.makeApiClient builds, with the transport above in place of the default one.
  const configuration = lib.createConfiguration({
    baseServer: new lib.ServerConfiguration(server, {}),
    authMethods: { default: kc },
    httpApi: transport(lib, server, signal),
  });
  return {
    server,
    userName: kc.getCurrentUser()?.name ?? "",
    core: new lib.CoreV1Api(configuration),
    apps: new lib.AppsV1Api(configuration),
    autoscaling: new lib.AutoscalingV2Api(configuration),
    authorization: new lib.AuthorizationV1Api(configuration),
    objects: new lib.KubernetesObjectApi(configuration),
    portForward: new lib.PortForward(kc),
  };
}

/** The API's own reason for a refusal: the Status message in the body, else the HTTP code. Never a header. */
function reasonOf(err: ApiException<unknown>): string {
  const body = err.body;
  try {
    const message = (typeof body === "string" ? JSON.parse(body) : body)?.message;
    if (typeof message === "string" && message) return message;
  } catch {}
  return err.code === 401 ? "Unauthorized" : "no message";
}

/** One library call; a refusal becomes a KubeApiError whose message never holds a header or the token. */
export async function kubeCall<T>(client: Pick<KubeClient, "server">, doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!isApiException(err)) throw err;
    const who = err.code === 401 ? "the kubeconfig's credentials were not accepted" : err.code === 403 ? "forbidden" : `HTTP ${err.code}`;
    throw new KubeApiError(`the cluster at ${client.server} refused ${doing}: ${who} (${reasonOf(err)})`, err.code);
  }
}
