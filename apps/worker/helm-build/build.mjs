// Builds the pinned helm (helm.sh/helm/v4, from the Go module proxy, checked against the Go checksum database) into
// .tools/helm-<version>/helm; an existing build of the same version is reused. The kubernetes kind renders a target's
// chart with it (packages/providers/src/kubernetes/helm.ts). The Dockerfile's go-build stage builds the same version.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * The pinned version. Helm 4 (helm.sh/helm/v4): Helm 3's security fixes end 2027-02-10. It needs go 1.26 (the
 * Dockerfile's golang image); `helm template`'s flags the kubernetes kind gives (--include-crds, --no-hooks,
 * --skip-tests, --values, --namespace) are unchanged from Helm 3.
 */
export const HELM_VERSION = "v4.3.1";
/** The Go module of that major version: helm.sh/helm/v4. */
const HELM_MODULE = `helm.sh/helm/${HELM_VERSION.split(".")[0]}`;

export function helmBuildInfo() {
  return { version: HELM_VERSION, binary: path.join(root, ".tools", `helm-${HELM_VERSION}`, "helm") };
}

export function ensureHelm({ log = console.log } = {}) {
  const { version, binary } = helmBuildInfo();
  if (existsSync(binary)) return { version, binary, built: false };
  const go = spawnSync("go", ["version"], { encoding: "utf8" });
  if (go.status !== 0) throw new Error("Go is needed to build helm (https://go.dev/dl/); `go version` failed");
  log(`building helm ${version} (a few minutes on 2 cores the first time)...`);
  const dir = path.dirname(binary);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  // go install of a module at a version: its own go.mod and go.sum, the download verified against sum.golang.org.
  const r = spawnSync(
    "nice",
    [
      "-n",
      "10",
      "go",
      "install",
      "-trimpath",
      `-ldflags=-s -w -X ${HELM_MODULE}/internal/version.version=${version}`,
      `${HELM_MODULE}/cmd/helm@${version}`,
    ],
    { cwd: tmp, stdio: "inherit", env: { ...process.env, CGO_ENABLED: "0", GOBIN: tmp, GOFLAGS: "-mod=mod" } },
  );
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`go install of helm ${version} failed (exit ${r.status})`);
  }
  mkdirSync(path.dirname(dir), { recursive: true });
  renameSync(tmp, dir);
  // Other versions older than a day are of no further use (a newer one may still be in use by a running worker).
  const tools = path.dirname(dir);
  for (const d of readdirSync(tools)) {
    const p = path.join(tools, d);
    if (d.startsWith("helm-") && p !== dir && Date.now() - statSync(p).mtimeMs > 24 * 3600 * 1000)
      rmSync(p, { recursive: true, force: true });
  }
  return { version, binary, built: true };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = ensureHelm();
  console.log(`${r.built ? "built" : "reusing"} ${r.binary}`);
}
