// What `opsbench run --external` prints: the opsbench-engine and stock k6 command lines of each generator, and the
// Kubernetes indexed Job of engine pods. The Job is parsed as YAML and its pod's shell line run with sh (a stand-in
// opsbench-engine prints its arguments): pod i of N runs execution segment i of N, as the command lines do.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { executionSegmentArgs, externalRunSettings } from "../src/k6/external-run-settings";

const RUN = "0f0e0d0c-1111-4222-8333-444455556666";
const TOKEN = "obi_abcDEF-123_xyz";
const settings = (generators: number) =>
  externalRunSettings({
    runId: RUN,
    token: TOKEN,
    baseUrl: "https://bench.example.com/some/path",
    generators,
    script: "script.js",
    image: "registry.example.com/opsbench-engine-job:1.2",
    scriptConfigmap: "my-script",
  });

interface Container {
  name: string;
  image: string;
  command: string[];
  args: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
}
/** A type, not an interface: a parsed document (Record<string, unknown>) narrows to it with a plain `as`. */
type Job = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    completionMode: string;
    completions: number;
    parallelism: number;
    backoffLimit: number;
    template: {
      spec: { restartPolicy: string; containers: Container[]; volumes: Array<{ name: string; configMap: { name: string } }> };
    };
  };
};

function documents(yamlText: string) {
  return parseAllDocuments(yamlText).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as Record<string, unknown>;
  });
}

const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-job-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the pod of completion index `index` starts: its shell line run with an opsbench-engine that prints its arguments. */
function podArgs(container: Container, index: number): string[] {
  const bin = path.join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, "opsbench-engine"), '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n');
  chmodSync(path.join(bin, "opsbench-engine"), 0o755);
  const [shell, ...flags] = container.command;
  const r = spawnSync(shell!, [...flags, ...container.args], {
    encoding: "utf8",
    env: { PATH: `${bin}:/usr/bin:/bin`, JOB_COMPLETION_INDEX: String(index) },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trimEnd().split("\n");
}

describe("external run settings", () => {
  it("one opsbench-engine command line per generator, with the token and its execution segment", () => {
    const s = settings(2);
    expect(s.ingestUrl).toBe(`https://bench.example.com/api/v1/runs/${RUN}/ingest`);
    expect(s.k6Commands).toEqual([
      `OPSBENCH_INGEST_TOKEN=${TOKEN} opsbench-engine run --out opsbench=${s.ingestUrl} --execution-segment 0:1/2 --execution-segment-sequence 0,1/2,1 script.js`,
      `OPSBENCH_INGEST_TOKEN=${TOKEN} opsbench-engine run --out opsbench=${s.ingestUrl} --execution-segment 1/2:1 --execution-segment-sequence 0,1/2,1 script.js`,
    ]);
    expect(settings(1).k6Commands).toEqual([`OPSBENCH_INGEST_TOKEN=${TOKEN} opsbench-engine run --out opsbench=${s.ingestUrl} script.js`]);
  });

  it("a stock k6's lines pipe its JSON output into opsbench ingest, with the same segment", () => {
    expect(settings(1).stockK6Commands).toEqual([
      `k6 run --out json=- script.js | OPSBENCH_INGEST_TOKEN=${TOKEN} opsbench ingest --run ${RUN} --url https://bench.example.com`,
    ]);
    expect(settings(3).stockK6Commands[2]).toBe(
      `k6 run --out json=- --execution-segment 2/3:1 --execution-segment-sequence 0,1/3,2/3,1 script.js | OPSBENCH_INGEST_TOKEN=${TOKEN} opsbench ingest --run ${RUN} --url https://bench.example.com --segment 2/3:1`,
    );
  });

  it("the Kubernetes Job: indexed, N completions N at a time, the token from its Secret, the script from the ConfigMap", () => {
    const docs = documents(settings(3).kubernetesJob);
    expect(docs.map((d) => `${d.apiVersion} ${d.kind}`)).toEqual(["v1 Secret", "batch/v1 Job"]);
    const secret = docs[0] as { metadata: { name: string }; stringData: { token: string } };
    expect(secret.stringData.token).toBe(TOKEN);
    const job = docs[1] as Job;
    expect(job.metadata.name).toBe("opsbench-0f0e0d0c");
    expect(job.metadata.labels["opsbench.dev/run"]).toBe(RUN);
    expect(job.spec).toMatchObject({ completionMode: "Indexed", completions: 3, parallelism: 3, backoffLimit: 0 });
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe("Never");
    const [engine] = pod.containers;
    expect(engine!.image).toBe("registry.example.com/opsbench-engine-job:1.2");
    expect(engine!.env).toEqual([
      { name: "OPSBENCH_INGEST_TOKEN", valueFrom: { secretKeyRef: { name: secret.metadata.name, key: "token" } } },
    ]);
    // The token is in the Secret only, never on the pod's command line.
    expect(JSON.stringify(job)).not.toContain(TOKEN);
    expect(pod.volumes).toEqual([{ name: "script", configMap: { name: "my-script" } }]);
    expect(engine!.volumeMounts).toEqual([{ name: "script", mountPath: "/scripts", readOnly: true }]);
    expect(engine!.args.join(" ")).toContain("--execution-segment");
  });

  it("pod i of N runs execution segment i of N, computed from JOB_COMPLETION_INDEX", () => {
    for (const n of [1, 2, 3]) {
      const job = documents(settings(n).kubernetesJob)[1] as Job;
      for (let i = 0; i < n; i++)
        expect(podArgs(job.spec.template.spec.containers[0]!, i)).toEqual([
          "run",
          "--out",
          `opsbench=https://bench.example.com/api/v1/runs/${RUN}/ingest`,
          ...executionSegmentArgs(i, n),
          "/scripts/script.js",
        ]);
    }
  });
});
