// Adding a target kind (docs/architecture.md#a-new-target-kind), exercised by a kind only tests have (tests/test-kind/):
// the compiler refuses the build until its spec, provider and form exist; registered at run time, the API, the form
// and the worker take it with no other edit.
import "./test-kind/register";
import { readFileSync } from "node:fs";
import path from "node:path";
import { targetInput } from "@opsbench/core";
import { targetItemSchema } from "@opsbench/api";
import { startRun } from "@opsbench/jobs";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { kindFormOf, kindOptions } from "@/features/targets/target-form/kinds/kind-forms";
import { openTestStack, shortRamp, waitForFinal } from "./helpers";
import { TEST_KIND } from "./test-kind/kind";

const repo = path.resolve(import.meta.dirname, "..");
const at = (p: string) => path.join(repo, p);
const KINDS = at("packages/core/src/kinds/index.ts");
const PROVIDERS = at("packages/providers/src/index.ts");
const FORMS = at("apps/web/features/targets/target-form/kinds/kind-forms.ts");

/** A file as a developer edits it to add a kind: an import on top, and `entry` before `anchor` (the end of a record). */
function withEntry(file: string, imports: string, anchor: string, entry: string): string {
  const source = readFileSync(file, "utf8");
  if (!source.includes(anchor)) throw new Error(`${path.relative(repo, file)} has no ${anchor}`);
  return `${imports}\n${source.replace(anchor, `  ${entry}\n${anchor}`)}`;
}

/**
 * The source files the three programs below share, parsed once (as an editor's language service keeps them): the web
 * app's program reads about a thousand files, most of them declarations under node_modules.
 */
const parsed = new Map<string, ts.SourceFile>();

/** The errors tsc reports for the provider registry and the web's kind forms with some files replaced or added. */
function compileErrors(overlay: Map<string, string>): Array<{ file: string; message: string }> {
  const config = ts.getParsedCommandLineOfConfigFile(
    at("apps/web/tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error("apps/web/tsconfig.json did not parse");
  const options = { ...config.options, noEmit: true, incremental: false, plugins: [] };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) => {
    const text = overlay.get(path.resolve(file));
    if (text !== undefined) return ts.createSourceFile(file, text, language);
    const key = `${file}|${JSON.stringify(language)}`;
    const cached = parsed.get(key);
    if (cached) return cached;
    const source = getSourceFile(file, language, ...rest);
    if (source) parsed.set(key, source);
    return source;
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => overlay.has(path.resolve(file)) || fileExists(file);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => overlay.get(path.resolve(file)) ?? readFile(file);
  const program = ts.createProgram({ rootNames: [PROVIDERS, FORMS], options, host });
  // The files a developer edits to add a kind, checked in full (what they use of the rest is checked with them):
  // checking every file of the web app's program three times took most of this file's minute of CPU.
  const edited = [...new Set([PROVIDERS, FORMS, ...overlay.keys()])].map((f) => program.getSourceFile(f)).filter((f) => f !== undefined);
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...edited.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
  return diagnostics.map((d) => ({
    file: d.file ? path.relative(repo, d.file.fileName) : "",
    message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
  }));
}

describe("a new target kind, declared in the catalog", () => {
  // Its spec: a file in kinds/ and a line in TARGET_KINDS.
  const withSpec = new Map([
    [at("packages/core/src/kinds/test-echo.ts"), 'export { testEchoKind } from "../../../../tests/test-kind/kind";\n'],
    [
      KINDS,
      withEntry(
        KINDS,
        'import { testEchoKind } from "./test-echo";',
        "} satisfies Record<string, KindDefinition>;",
        '"test-echo": testEchoKind,',
      ),
    ],
  ]);

  it("is refused by the compiler until its provider and its form exist, then compiles", () => {
    const refused = compileErrors(withSpec);
    expect(new Set(refused.map((e) => e.file))).toEqual(
      new Set(["packages/providers/src/index.ts", "apps/web/features/targets/target-form/kinds/kind-forms.ts"]),
    );
    for (const e of refused) expect(e.message).toContain('"test-echo"');

    // Its provider and its form: a line in each record.
    const complete = new Map([
      ...withSpec,
      [
        PROVIDERS,
        withEntry(
          PROVIDERS,
          'import { testEchoProvider } from "../../../tests/test-kind/provider";',
          "};\n/** The providers of kinds registered",
          '"test-echo": testEchoProvider,',
        ),
      ],
      [
        FORMS,
        withEntry(
          FORMS,
          'import { testEchoForm } from "../../../../../../tests/test-kind/form";',
          "} satisfies { [K in TargetKind]: KindForm };",
          '"test-echo": testEchoForm,',
        ),
      ],
    ]);
    expect(compileErrors(complete)).toEqual([]);

    // A provider filed under another kind's name (its own kind and spec are not that kind's) is refused too.
    const misfiled = new Map([
      ...complete,
      [PROVIDERS, (complete.get(PROVIDERS) ?? "").replace('"test-echo": testEchoProvider,', '"test-echo": endpoint,')],
    ]);
    const wrong = compileErrors(misfiled);
    expect(wrong.map((e) => e.file)).toEqual(["packages/providers/src/index.ts"]);
    expect(wrong[0]?.message).toContain('"endpoint"');
  });
});

describe("a kind registered at run time (tests/test-kind/register.ts)", () => {
  let stack: Awaited<ReturnType<typeof openTestStack>>;
  beforeAll(async () => {
    stack = await openTestStack();
  });
  afterAll(() => stack.close());

  it("is taken by the API's target schemas and offered by the form's picker", () => {
    const body = { name: "echo-test-kind", kind: TEST_KIND, spec: { replicas: 2 } };
    expect(API_CONTRACTS["POST /api/v1/targets"].body.parse(body)).toEqual(body);
    const stored = {
      id: "0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b",
      createdAt: new Date(0).toISOString(),
      updatedAt: new Date(0).toISOString(),
      ...body,
    };
    expect(targetItemSchema.parse(stored)).toEqual(stored);
    // Its spec is its own: a field of another kind is refused.
    expect(targetInput.safeParse({ ...body, spec: { replicas: 2, app: "echo/node" } }).success).toBe(false);

    expect(kindOptions().map((o) => o.kind)).toContain(TEST_KIND);
    const form = kindFormOf(TEST_KIND);
    expect(form?.place).toBe("platform");
    expect(form?.place === "platform" && targetInput.parse({ name: "f", kind: TEST_KIND, spec: form.build({ replicas: "3" }) })).toEqual({
      name: "f",
      kind: TEST_KIND,
      spec: { replicas: 3 },
    });
  });

  it("is run by the worker's pipeline through its provider", async () => {
    await stack.scope.targets.put(targetInput.parse({ name: "echo-test-kind", kind: TEST_KIND, spec: { replicas: 1 } }));
    await stack.scope.workloads.put(shortRamp("echo-test-kind-ramp", { vus: 2, holdSeconds: 3, path: "/?input=kind" }));
    const run = await startRun(stack.scope, stack.queue, { targetName: "echo-test-kind", workloadName: "echo-test-kind-ramp" });
    const view = await waitForFinal(stack.db, run.id);
    expect(view.error).toBeNull();
    expect(view.status).toBe("SUCCEEDED");
    expect(view.steps.find((s) => s.name === "PROVISION")?.status).toBe("SUCCEEDED");
    expect(view.summary!.requests).toBeGreaterThan(0);
    expect(view.summary!.failures).toBe(0);
    expect(view.vcpuPerReplica).toBe(1);
  });
});
