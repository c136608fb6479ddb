// The Kubernetes API clients of @kubernetes/client-node 2.x (undici's fetch; it needs Node 22.19 or newer)
// for a workspace's kubeconfig. The user's YAML never reaches the library: it is parsed (no aliases) and judged
// by a strict schema first (core targets/kubeconfig.ts: no field naming a file, a command, an auth provider, a proxy or an
// identity to impersonate), and the library gets a kubeconfig built from the validated object (loadFromOptions).
// The cluster's server must pass the load-host policy before one request is made (kubeServerVerdict).
import type {
  ApiException,
  AppsV1Api,
  AuthorizationV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PortForward,
  V1APIResource,
} from "@kubernetes/client-node";
import {
  type CredentialSecret,
  EMPTY_LOAD_HOST_ALLOWLIST,
  isLoopbackAddress,
  type LoadHostAllowlist,
  loadHostVerdict,
  type ProtectedPort,
  protectedPortVerdict,
  urlPort,
  type ValidKubeconfig,
  validateKubeconfig,
} from "@opsbench/core";
import { ProviderError } from "../provider";

type KubernetesSecret = Extract<CredentialSecret, { kind: "kubernetes" }>;

const CALL_TIMEOUT_MS = 15_000;
/** The most of one answer read: far above any object or list opsbench asks for, far below the worker's memory. */
export const KUBE_ANSWER_MAX_BYTES = 16 * 1024 * 1024;

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

/** The library's object API, with its discovery of one kind callable (cached per apiVersion there). */
export interface ObjectApi extends KubernetesObjectApi {
  /** The served resource of this apiVersion and kind (its name, whether it is namespaced); undefined when the group/version serves no such kind. */
  discover(apiVersion: string, kind: string): Promise<V1APIResource | undefined>;
}

/** The library's typed clients for one kubeconfig; every request ends with the signal given to kubeClientOf. */
export interface KubeClient {
  server: string;
  userName: string;
  core: CoreV1Api;
  apps: AppsV1Api;
  autoscaling: AutoscalingV2Api;
  authorization: AuthorizationV1Api;
  /** Any object by its apiVersion/kind (the user's manifests), and the cluster's discovery of a kind. */
  objects: ObjectApi;
  /**
   * A document as the library's model of its kind (its loadYaml): `objects` serializes a built-in kind through that
   * model, which knows fields by their model names, so a plain document would lose fields spelled otherwise
   * (a CRD schema's x-kubernetes-preserve-unknown-fields).
   */
  model: <T extends { apiVersion: string; kind: string }>(doc: T) => T;
  /** Port-forwards to pods through the API server (a WebSocket each; port-forward.ts). */
  portForward: PortForward;
}

/**
 * Whether the kubeconfig's server may be contacted: the same host policy as load to endpoints opsbench did not start
 * (core load-hosts/load-host-policy.ts: a host on the admin's OPSBENCH_LOAD_ALLOWED_HOSTS; a loopback address only as a
 * `host:port` entry), and never a port of opsbench's own services (Postgres, Redis, the web app), whatever the
 * allowlist says. The one place the kube API server meets the policy: the API's credential check, the worker's check
 * before deploy, deploy, teardown and the reaper all come through kubeClientOf.
 */
export function kubeServerVerdict(
  server: string,
  allowlist: LoadHostAllowlist | undefined,
  protectedPorts: readonly ProtectedPort[] = [],
): { allowed: true } | { allowed: false; message: string } {
  const own = protectedPortVerdict(server, protectedPorts);
  if (own) return { allowed: false, message: `the kubeconfig's server is refused: ${own.message.replace(/^load to \S+ refused: /, "")}` };
  const list = allowlist ?? EMPTY_LOAD_HOST_ALLOWLIST;
  const verdict = loadHostVerdict(server, list);
  if (verdict.allowed) return { allowed: true };
  const now = `OPSBENCH_LOAD_ALLOWED_HOSTS in the worker's environment, ${list.entries.length ? `now: ${list.entries.join(", ")}` : "now empty"}; docs/security.md`;
  if (isLoopbackAddress(verdict.host)) {
    const url = new URL(server);
    const where = `${url.hostname}:${urlPort(url)}`;
    return {
      allowed: false,
      message: `the kubeconfig's server ${where} is refused: a cluster on this machine's loopback (where opsbench's own services listen) only when the admin allows that address and port, as "${where}" (${now})`,
    };
  }
  return {
    allowed: false,
    message: `the kubeconfig's server ${verdict.host} is refused: opsbench talks only to a cluster on a host the admin allows (${now})`,
  };
}

/** The kubeconfig parsed, judged and its server under the host policy; throws a ProviderError naming what is wrong. */
function judgedKubeconfig(secret: KubernetesSecret, opts: Omit<KubeClientOptions, "signal">): ValidKubeconfig {
  const verdict = validateKubeconfig(secret.kubeconfig, secret.context);
  if (!verdict.ok) throw new ProviderError(verdict.message);
  const { cluster } = verdict.config;
  // The library sends no token over plain http unless the kubeconfig says so; its own message names neither.
  if (cluster.server.startsWith("http:") && !cluster.skipTLSVerify)
    throw new ProviderError(
      `the kubeconfig's server ${cluster.server} is plain http: set insecure-skip-tls-verify: true on its cluster to use it anyway`,
    );
  const host = kubeServerVerdict(cluster.server, opts.loadHosts, opts.protectedPorts);
  if (!host.allowed) throw new ProviderError(host.message);
  return verdict.config;
}

/** The library's KubeConfig built from the validated object (never from the user's text). */
function loadKubeconfig(lib: Library, { cluster, user, context }: ValidKubeconfig): KubeConfig {
  const kc = new lib.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster }],
    users: [{ ...user }],
    contexts: [
      { name: context.name, cluster: context.cluster, user: context.user, ...(context.namespace ? { namespace: context.namespace } : {}) },
    ],
    currentContext: context.name,
  });
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
        const text = await boundedText(response.body.stream(), response.headers["content-length"], `${server} answered ${doing}`);
        return new lib.ResponseContext(response.httpStatusCode, response.headers, {
          text: async () => text,
          binary: async () => Buffer.from(text),
          stream: () => null,
        });
      } catch (err) {
        if (err instanceof AnswerTooLarge) throw new ProviderError(err.message);
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

class AnswerTooLarge extends Error {}

/**
 * An answer's body as text, refused beyond KUBE_ANSWER_MAX_BYTES (said up front by Content-Length, or counted as it
 * comes): a cluster, or anything at its address, could otherwise send an endless body into the worker's memory.
 */
async function boundedText(body: ReadableStream<Uint8Array> | null | undefined, length: string | undefined, what: string): Promise<string> {
  const refuse = () =>
    new AnswerTooLarge(
      `the cluster at ${what} with more than ${KUBE_ANSWER_MAX_BYTES / 1024 / 1024} MiB: refused (opsbench reads at most that of one answer)`,
    );
  if (length !== undefined && Number(length) > KUBE_ANSWER_MAX_BYTES) {
    await body?.cancel().catch(() => {});
    throw refuse();
  }
  if (!body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > KUBE_ANSWER_MAX_BYTES) {
      await reader.cancel().catch(() => {});
      throw refuse();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export interface KubeClientOptions {
  /** Every request of the clients ends when it aborts. */
  signal?: AbortSignal;
  /** OPSBENCH_LOAD_ALLOWED_HOSTS (the worker's): where the kubeconfig's server may be (absent: nowhere). */
  loadHosts?: LoadHostAllowlist;
  /** The ports of opsbench's own services (the worker's K6Settings.blockPorts): never a kubeconfig's server. */
  protectedPorts?: readonly ProtectedPort[];
}

/** The clients for a workspace's kubeconfig; throws a ProviderError naming what is wrong with it (nothing is sent then). */
export async function kubeClientOf(secret: KubernetesSecret, opts: KubeClientOptions | AbortSignal = {}): Promise<KubeClient> {
  const { signal, ...policy } = opts instanceof AbortSignal ? { signal: opts } : opts;
  // Judged before the library is even loaded: a refusal costs nothing and sends nothing.
  const judged = judgedKubeconfig(secret, policy);
  const lib = await loadLibrary();
  const kc = loadKubeconfig(lib, judged);
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
    objects: objectApiOf(lib, configuration),
    model: (doc) => lib.loadYaml(JSON.stringify(doc)),
    portForward: new lib.PortForward(kc),
  };
}

/** The library declares its discovery (resource()) protected: a subclass is the typed way to call it. */
function objectApiOf(lib: Library, configuration: ConstructorParameters<Library["KubernetesObjectApi"]>[0]): ObjectApi {
  class DiscoveringObjectApi extends lib.KubernetesObjectApi implements ObjectApi {
    discover(apiVersion: string, kind: string) {
      return this.resource(apiVersion, kind);
    }
  }
  return new DiscoveringObjectApi(configuration);
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
