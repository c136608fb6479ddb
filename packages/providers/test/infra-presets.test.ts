// Every file under infra/ goes through the strict schema of what it is (a target body, manifests, a study, a
// workload, a shell script, a Dockerfile, the README's table): a file no loader knows
// fails the test, so a new preset cannot land untested. The presets that need a platform are deployed in their
// providers' tests (aws-providers, gcp-cloud-run, kubernetes).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { factorLevels, kubernetesSpec, studyInput, targetInput, targetVariants, workloadInput } from "@opsbench/core";
import { describe, expect, it } from "vitest";
import { type Manifest, planBuiltInManifests } from "../src/kubernetes/manifests";

const repo = path.resolve(import.meta.dirname, "../../..");
const infra = path.join(repo, "infra");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [path.relative(infra, full)];
  });
}

const json = (file: string) => JSON.parse(readFileSync(path.join(infra, file), "utf8")) as unknown;
const text = (file: string) => readFileSync(path.join(infra, file), "utf8");

/** The zod issues of a parse, as "path: message" lines, so a failing preset says what is wrong. */
function strict<T>(
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
  },
  value: unknown,
): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("\n"));
  return r.data;
}

const RUN = "55555555-5555-4555-8555-555555555555";
const DOCKERFILE_INSTRUCTIONS = /^(FROM|WORKDIR|COPY|RUN|ENV|EXPOSE|CMD|ENTRYPOINT|USER|ARG|LABEL)\b/;

/** One loader per kind of file; each throws with the reason when the file is not what it claims. */
const LOADERS: Array<{ match: RegExp; what: string; load: (file: string) => void }> = [
  {
    match: /^targets\/[^/]+\.json$/,
    what: "a POST /api/v1/targets body",
    load: (file) => {
      const t = strict(targetInput, json(file));
      expect(`${t.name}.json`).toBe(path.basename(file));
      if (t.kind === "kubernetes" && t.spec.manifests) planBuiltInManifests(t.spec.manifests, RUN);
    },
  },
  {
    match: /^manifests\/[^/]+\.ya?ml$/,
    what: "a kubernetes target's manifests",
    load: (file) => {
      strict(kubernetesSpec, { credential: "c", manifests: text(file) });
      expect(planBuiltInManifests(text(file), RUN).length).toBeGreaterThan(0);
    },
  },
  {
    match: /^studies\/[^/]+\.json$/,
    what: "a study file (POST /api/v1/studies) whose factor levels every inline target takes",
    load: (file) => {
      const study = strict(studyInput, json(file));
      study.targets.forEach((t, i) => {
        if (typeof t !== "string" && study.factors)
          expect(targetVariants(t, study.factors, ["targets", i]).length).toBe(factorLevels(study.factors).length);
      });
    },
  },
  {
    match: /^workloads\/[^/]+\.json$/,
    what: "a workload (POST /api/v1/workloads)",
    load: (file) => void strict(workloadInput, json(file)),
  },
  {
    match: /^grafana\/[^/]+\.json$/,
    what: "a Grafana dashboard of the exported results (its queries are checked against the exporter's names in packages/core/test/grafana-dashboard.test.ts)",
    load: (file) => {
      const d = json(file) as { title?: unknown; panels?: unknown[] };
      expect(typeof d.title, file).toBe("string");
      expect(d.panels?.length ?? 0, `${file}: panels`).toBeGreaterThan(0);
    },
  },
  {
    match: /\.sh$/,
    what: "a shell script",
    load: (file) => void execFileSync("sh", ["-n", path.join(infra, file)]),
  },
  {
    match: /(^|\/)Dockerfile$/,
    what: "a Dockerfile (built from the repository root)",
    load: (file) => {
      for (const line of text(file).split("\n")) {
        if (line.trim() === "" || line.startsWith("#")) continue;
        expect(line, `${file}: ${line}`).toMatch(DOCKERFILE_INSTRUCTIONS);
        const copy = /^COPY (?!--from)(\S+)/.exec(line);
        if (copy) expect(existsSync(path.join(repo, copy[1]!)), `${file}: COPY ${copy[1]} (from the repository root)`).toBe(true);
      }
    },
  },
  {
    match: /\.md$/,
    what: "a README: every file it names exists, and every preset is in its table",
    load: (file) => {
      const named = [...text(file).matchAll(/`([\w./-]+\.(?:json|ya?ml|sh))`/g)].map((m) => m[1]!);
      for (const n of named) expect(existsSync(path.join(path.dirname(path.join(infra, file)), n)), `${file} names ${n}`).toBe(true);
      if (file === "README.md")
        for (const f of filesUnder(infra).filter((f) => /^(targets|manifests|studies|workloads)\//.test(f)))
          expect(named, `infra/README.md does not list ${f}`).toContain(f);
    },
  },
];

describe("infra/: every file parses through its schema", () => {
  const files = filesUnder(infra).sort();

  it("every file has a loader", () => {
    const unknown = files.filter((f) => !LOADERS.some((l) => l.match.test(f)));
    expect(unknown, "files under infra/ that no loader in this test knows: add one").toEqual([]);
    expect(files.filter((f) => f.startsWith("targets/")).length).toBeGreaterThanOrEqual(6);
  });

  for (const file of files) {
    const loader = LOADERS.find((l) => l.match.test(file));
    if (loader) it(`${file} is ${loader.what}`, () => loader.load(file));
  }

  it("the IoT presets bring their database: the spec's database (IOT_DATABASE_URL), the manifests' Postgres and Secret", () => {
    for (const name of ["gke-50", "gke-80"]) {
      const t = strict(targetInput, json(`targets/${name}.json`));
      expect(t.kind === "kubernetes" && t.spec.database).toMatchObject({ engine: "postgres", urlEnv: "IOT_DATABASE_URL" });
    }
    const docs = planBuiltInManifests(text("manifests/gke-50.yaml"), RUN);
    const iot = docs.find((d) => d.kind === "Deployment" && d.metadata.name === "iot") as
      | (Manifest & { spec: { template: { spec: { containers: Array<{ env: Array<{ name: string; valueFrom?: unknown }> }> } } } })
      | undefined;
    expect(iot?.spec.template.spec.containers[0]?.env).toContainEqual({
      name: "IOT_DATABASE_URL",
      valueFrom: { secretKeyRef: { name: "iot-db", key: "url" } },
    });
    expect(docs.map((d) => `${d.kind} ${d.metadata.name}`)).toEqual(
      expect.arrayContaining(["Secret iot-db", "Deployment iot-db", "Service iot-db"]),
    );
  });
});
