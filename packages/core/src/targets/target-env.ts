// A target's `env`: variables given to the benchapp's processes. They come from
// users, so a name must be plain and must not be one of the hooks through which
// an interpreter or the dynamic loader runs code of the caller's choosing
// (NODE_OPTIONS=--import=data:..., LD_PRELOAD, PYTHONSTARTUP...). Values may be
// credentials (a database URL), so the API shows names only (redactTargetSecrets).
import { z } from "zod";
import { redactManifestSecrets, restoreManifestSecrets } from "./target-spec-secrets";

/** Letters, digits and '_', not starting with a digit: what every shell and runtime reads the same way. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Prefixes of interpreter, loader and runtime hooks (compared upper-cased). */
const REFUSED_PREFIXES = [
  "LD_", // glibc's loader: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT
  "DYLD_",
  "GLIBC_", // GLIBC_TUNABLES
  "GCONV_",
  "MALLOC_",
  "NODE_", // NODE_OPTIONS, NODE_PATH, NODE_REPL_EXTERNAL_MODULE... (NODE_ENV is allowed below)
  "PYTHON", // PYTHONSTARTUP, PYTHONPATH, PYTHONHOME, PYTHONWARNINGS...
  "JAVA_", // JAVA_TOOL_OPTIONS
  "_JAVA_",
  "JDK_",
  "PERL", // PERL5OPT, PERL5LIB
  "RUBY", // RUBYOPT, RUBYLIB
  "GEM_",
  "BUNDLE_",
  "LUA_",
  "DOTNET_", // DOTNET_STARTUP_HOOKS
  "CORECLR_",
  "COMPLUS_",
  "PHP",
  "OPENSSL_", // OPENSSL_CONF loads engines
  "BASH_FUNC_",
  "NPM_CONFIG_",
];

/** Single names that are hooks too. */
const REFUSED_NAMES = new Set([
  "IFS",
  "ENV",
  "BASH_ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PROMPT_COMMAND",
  "CLASSPATH",
  "HOSTALIASES",
  "LOCALDOMAIN",
  "RES_OPTIONS",
  "LOCPATH",
  "NLSPATH",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
]);

/** What opsbench gives every benchapp process itself (a benchapp's minimal environment). */
const OWN_NAMES = new Set(["PATH", "HOME", "PORT"]);

/**
 * Where a benchapp listens: opsbench sets it to the run's own address (loopback, or the run's network namespace), so a
 * target cannot make its process listen on every interface of the machine (HOST=0.0.0.0) or another address.
 */
const LISTEN_NAMES = new Set(["HOST", "HOSTNAME"]);

/** Names under a refused prefix that only tune a runtime, never load code. */
const ALLOWED_NAMES = new Set(["NODE_ENV", "PYTHONUNBUFFERED", "PYTHONHASHSEED"]);

/** Why a name cannot be used in a target's env, or null when it can. */
export function targetEnvNameProblem(name: string): string | null {
  if (!ENV_NAME.test(name))
    return `"${name}" is not a plain variable name: use letters, digits and '_' (at most 128), not starting with a digit`;
  const upper = name.toUpperCase();
  if (ALLOWED_NAMES.has(upper)) return null;
  if (OWN_NAMES.has(upper) || upper.startsWith("OPSBENCH_")) return `${name} is set by opsbench itself and cannot be given`;
  if (LISTEN_NAMES.has(upper))
    return `${name} is refused: it sets the address a benchapp listens on, which opsbench sets itself (the run's own address: never every interface of the machine)`;
  if (REFUSED_NAMES.has(upper) || REFUSED_PREFIXES.some((p) => upper.startsWith(p)))
    return `${name} is refused: it lets a runtime or the loader run code or read files of the caller's choosing (NODE_OPTIONS, LD_*, PYTHON*, JAVA_TOOL_OPTIONS and the like are not accepted)`;
  return null;
}

/** At most this many variables, each value at most this long: env is configuration, not a data channel. */
const MAX_VARIABLES = 64;
const MAX_VALUE_LENGTH = 8192;

/** A target's `env`: safe names only, plain string values without NUL. */
export const targetEnv = z.record(z.string(), z.string().max(MAX_VALUE_LENGTH)).superRefine((env, ctx) => {
  const names = Object.keys(env);
  if (names.length > MAX_VARIABLES) ctx.addIssue({ code: "custom", message: `at most ${MAX_VARIABLES} variables` });
  for (const name of names) {
    const problem = targetEnvNameProblem(name);
    if (problem) ctx.addIssue({ code: "custom", path: [name], message: problem });
    else if (env[name]!.includes("\0")) ctx.addIssue({ code: "custom", path: [name], message: "a value cannot contain a NUL character" });
  }
});

/** What the API shows instead of an env value: values are write-only. */
export const REDACTED_ENV_VALUE = "(hidden)";

/** Who reads a target spec: an editor (or owner) may see what they edit; a viewer may not. */
export interface SpecReader {
  canEdit: boolean;
}

/**
 * A copy of a target spec as `reader` may see it. For everyone: env values are hidden (names stay, so a user sees
 * what is set), and so are the values of Kubernetes Secret objects in `manifests` (data, stringData, annotations;
 * manifests that cannot be read safely are hidden whole) and helm values under a key naming a credential. For a
 * reader who may not edit (a viewer), `userData`, every helm value and the chart too.
 * The default reader is one who may not edit.
 */
export function redactTargetSecrets<T>(spec: T, reader: SpecReader = { canEdit: false }): T {
  if (!isRecord(spec)) return spec;
  const out: Record<string, unknown> = { ...spec };
  if (isRecord(spec.env)) out.env = hideValues(spec.env);
  // aws-asg's container carries an env of its own.
  if (isRecord(spec.container) && isRecord(spec.container.env)) out.container = { ...spec.container, env: hideValues(spec.container.env) };
  if (typeof spec.manifests === "string") out.manifests = redactManifestSecrets(spec.manifests, REDACTED_ENV_VALUE);
  if (typeof spec.userData === "string" && !reader.canEdit) out.userData = REDACTED_ENV_VALUE;
  if (isRecord(spec.helm)) out.helm = redactHelm(spec.helm, reader);
  return out as T;
}

/** A helm value's key that names a credential: what is under it is hidden from every reader, as env values are. */
const SECRET_HELM_KEY = /pass|secret|token|credential|key|auth|cert|dsn|private/i;

/**
 * A kubernetes target's chart as `reader` may see it: under a key that names a credential (password, secretKey,
 * auth...) every value is hidden from everyone; a viewer sees no value at all (every leaf hidden, the keys stay) and
 * not the chart (its own values.yaml and templates may hold credentials).
 */
function redactHelm(helm: Record<string, unknown>, reader: SpecReader): Record<string, unknown> {
  const out: Record<string, unknown> = { ...helm };
  if (helm.values !== undefined) out.values = hideHelmValues(helm.values, !reader.canEdit);
  if (typeof helm.chart === "string" && !reader.canEdit) out.chart = REDACTED_ENV_VALUE;
  return out;
}

function hideHelmValues(value: unknown, all: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => hideHelmValues(v, all));
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hideHelmValues(v, all || SECRET_HELM_KEY.test(k))]));
  return all ? REDACTED_ENV_VALUE : value;
}

/** Marks a value to drop: a hidden marker with nothing stored under its place. */
const DROPPED = Symbol("dropped");

/** Edited helm values: a value still showing the marker keeps the one stored at the same place (dropped when none). */
function keepHiddenHelmValues(edited: unknown, stored: unknown): unknown {
  if (edited === REDACTED_ENV_VALUE) return stored === undefined ? DROPPED : stored;
  if (Array.isArray(edited))
    return edited.map((v, i) => keepHiddenHelmValues(v, Array.isArray(stored) ? stored[i] : undefined)).filter((v) => v !== DROPPED);
  if (isRecord(edited)) {
    const before = isRecord(stored) ? stored : {};
    return Object.fromEntries(
      Object.entries(edited)
        .map(([k, v]) => [k, keepHiddenHelmValues(v, before[k])] as const)
        .filter(([, v]) => v !== DROPPED),
    );
  }
  return edited;
}

/**
 * An edited spec as it should be stored: a variable still showing the hidden
 * marker keeps its stored value (the editor never saw it); any other value replaces it.
 * The same for Secret values in `manifests`, helm values (by their place) and the chart, and `userData` sent back as
 * the marker.
 */
export function restoreTargetSecrets<T>(edited: T, stored: unknown): T {
  if (!isRecord(edited)) return edited;
  const old = isRecord(stored) ? stored : {};
  const out: Record<string, unknown> = { ...edited };
  if (isRecord(edited.env)) out.env = keepHidden(edited.env, old.env);
  if (isRecord(edited.container) && isRecord(edited.container.env)) {
    const oldContainer = isRecord(old.container) ? old.container : {};
    out.container = { ...edited.container, env: keepHidden(edited.container.env, oldContainer.env) };
  }
  if (typeof edited.manifests === "string") {
    const manifests = restoreManifestSecrets(edited.manifests, old.manifests, REDACTED_ENV_VALUE);
    if (manifests === undefined) delete out.manifests;
    else out.manifests = manifests;
  }
  if (edited.userData === REDACTED_ENV_VALUE) {
    if (typeof old.userData === "string") out.userData = old.userData;
    else delete out.userData;
  }
  if (isRecord(edited.helm)) {
    const oldHelm = isRecord(old.helm) ? old.helm : {};
    const helm: Record<string, unknown> = { ...edited.helm };
    if (edited.helm.values !== undefined) helm.values = keepHiddenHelmValues(edited.helm.values, oldHelm.values);
    if (edited.helm.chart === REDACTED_ENV_VALUE) {
      if (typeof oldHelm.chart === "string") helm.chart = oldHelm.chart;
      else delete helm.chart;
    }
    out.helm = helm;
  }
  return out as T;
}

const hideValues = (env: Record<string, unknown>) => Object.fromEntries(Object.keys(env).map((k) => [k, REDACTED_ENV_VALUE]));

/** An edited env: a value still showing the marker keeps the stored one (dropped when there is none). */
function keepHidden(edited: Record<string, unknown>, stored: unknown): Record<string, unknown> {
  const before = isRecord(stored) ? stored : {};
  return Object.fromEntries(
    Object.entries(edited).flatMap(([k, v]) => {
      if (v !== REDACTED_ENV_VALUE) return [[k, v]];
      const kept = before[k];
      return typeof kept === "string" ? [[k, kept]] : [];
    }),
  );
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
