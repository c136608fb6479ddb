// Pure parts of `opsbench run --script` (issue 37): the workload name a repository path gives, the name the CLI
// gave before (renamed once), and https modules bundled with their hash and the imports rewritten. No server.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scriptEnvOf } from "../src/remote-main";
import { bundleRemoteModules, modulePath } from "../src/remote-modules";
import { legacyWorkloadName, nameOfPath, readScriptUpload, workloadNameFor } from "../src/script-upload";
import { UsageError } from "../src/usage-error";

const repo = mkdtempSync(path.join(os.tmpdir(), "opsbench-names-"));
mkdirSync(path.join(repo, ".git"));
const put = (name: string, text: string) => {
  mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
  writeFileSync(path.join(repo, name), text);
  return path.join(repo, name);
};
const text = (b64: string | undefined) => Buffer.from(b64 ?? "", "base64").toString("utf8");

describe("workload names from repository paths", () => {
  it("two smoke.js are two workloads, and an import does not rename one", () => {
    const api = put("tests/api/smoke.js", "export default function () {}\n");
    const web = put("tests/web/smoke.js", "export default function () {}\n");
    expect(workloadNameFor(readScriptUpload(api), api)).toBe("tests.api.smoke.js");
    expect(workloadNameFor(readScriptUpload(web), web)).toBe("tests.web.smoke.js");
    put("tests/lib/x.js", "export const x = 1;\n");
    put("tests/api/smoke.js", 'import { x } from "../lib/x.js";\nexport default function () { x; }\n');
    const upload = readScriptUpload(api);
    expect(upload.entry).toBe("api/smoke.js");
    expect(workloadNameFor(upload, api)).toBe("tests.api.smoke.js");
    // What the CLI called it before, found once and renamed: the entry's path among the files.
    expect(legacyWorkloadName(upload, api)).toBe("script-api-smoke.js");
  });

  it("a folder's entry is named by its path too; names stay within the names' rule", () => {
    put("load/Checkout Flow/main.js", "export default function () {}\n");
    const dir = path.join(repo, "load/Checkout Flow");
    expect(workloadNameFor(readScriptUpload(dir), dir)).toBe("load.checkout-flow.main.js");
    const long = nameOfPath(`${"very-long-folder/".repeat(6)}smoke.js`);
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^[a-z0-9][a-z0-9._-]*-[0-9a-f]{8}$/);
    expect(nameOfPath("_private/x.js")).toBe("private.x.js");
  });
});

describe("remote modules", () => {
  const served: Record<string, string> = {
    "https://jslib.k6.io/k6-summary/0.0.2/index.js": 'import { pad } from "./pad.js";\nexport const textSummary = () => pad("ok");\n',
    "https://jslib.k6.io/k6-summary/0.0.2/pad.js": 'export const pad = (s) => " " + s;\n',
  };
  const fakeFetch: typeof fetch = async (input) => {
    const body = served[String(input)];
    return body === undefined ? new Response("no", { status: 404 }) : new Response(body);
  };

  it("bundles an https module and the module it imports, rewrites the import, and records each URL with its sha256", async () => {
    const entry = put(
      "tests/summary/smoke.js",
      'import { textSummary } from "https://jslib.k6.io/k6-summary/0.0.2/index.js";\nexport default function () { textSummary(); }\n',
    );
    const { upload, remoteModules } = await bundleRemoteModules(readScriptUpload(entry), { fetch: fakeFetch });
    expect(upload.source).toContain('from "./_remote/jslib.k6.io/k6-summary/0.0.2/index.js"');
    const sha = (s: string) => createHash("sha256").update(s).digest("hex");
    expect(remoteModules).toEqual([
      {
        url: "https://jslib.k6.io/k6-summary/0.0.2/index.js",
        sha256: sha(served["https://jslib.k6.io/k6-summary/0.0.2/index.js"]!),
        path: "_remote/jslib.k6.io/k6-summary/0.0.2/index.js",
      },
      {
        url: "https://jslib.k6.io/k6-summary/0.0.2/pad.js",
        sha256: sha(served["https://jslib.k6.io/k6-summary/0.0.2/pad.js"]!),
        path: "_remote/jslib.k6.io/k6-summary/0.0.2/pad.js",
      },
    ]);
    expect(text(upload.files["_remote/jslib.k6.io/k6-summary/0.0.2/index.js"])).toContain('from "./pad.js"');
    expect(text(upload.files["_remote/jslib.k6.io/k6-summary/0.0.2/pad.js"])).toBe(served["https://jslib.k6.io/k6-summary/0.0.2/pad.js"]);
  });

  it("a module it cannot fetch, or plain http from a host not allowed, is a usage error naming the URL", async () => {
    const gone = put("tests/gone/smoke.js", 'import "https://jslib.k6.io/nope.js";\nexport default function () {}\n');
    await expect(bundleRemoteModules(readScriptUpload(gone), { fetch: fakeFetch })).rejects.toThrow(
      "cannot fetch the module https://jslib.k6.io/nope.js: it answered 404; nothing was uploaded",
    );
    const plain = put("tests/plain/smoke.js", 'import "http://mirror.internal/x.js";\nexport default function () {}\n');
    await expect(bundleRemoteModules(readScriptUpload(plain), { fetch: fakeFetch })).rejects.toThrow(UsageError);
    expect(modulePath(new URL("http://127.0.0.1:8080/a/b.js?v=1"))).toMatch(/^_remote\/127\.0\.0\.1_8080\/a\/b_[0-9a-f]{8}\.js$/);
  });
});

describe("--env and --secret", () => {
  it("takes KEY=VALUE (a value may hold '='), refuses what the server would, naming the flag", () => {
    expect(scriptEnvOf(["A=1", "B=x=y", "C="], ["TOKEN"])).toEqual({ env: { A: "1", B: "x=y", C: "" }, secrets: ["TOKEN"] });
    for (const [pairs, secrets, says] of [
      [["NOEQUALS"], [], '--env: "NOEQUALS" is not KEY=VALUE'],
      [["A=1", "A=2"], [], "--env: A is given twice"],
      [["OPSBENCH_BASE_URL=http://elsewhere"], [], "--env: OPSBENCH_BASE_URL: opsbench sets OPSBENCH_* and K6_* keys itself"],
      [["lower=1"], [], "--env: lower: an __ENV key"],
      [[], ["K6_X"], "--secret: K6_X: opsbench sets"],
      [["A=1"], ["A"], "--secret: A is also given with --env"],
      [[], ["T", "T"], "--secret: a secret is named twice"],
    ] as const)
      expect(() => scriptEnvOf([...pairs], [...secrets]), says).toThrow(says);
  });
});
