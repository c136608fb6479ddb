// `--junit FILE` against the common JUnit schema (issue 37): Jenkins' junit-10.xsd (jenkinsci/xunit-plugin,
// src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd; pytest's output follows it). The
// XSD is not vendored; the rules of it this report touches are written down below as a checker: which elements
// exist, which attributes each may carry and which it must, which children each may hold, and which hold text.
// `skipped` on <testsuites> (the XSD allows it on <testsuite> only) made CI systems that validate refuse the file.
import { parseStringPromise } from "xml2js";
import { describe, expect, it } from "vitest";
import { type CiReport, junitXml } from "../src/ci-report";

interface ElementRule {
  attributes: string[];
  required?: string[];
  children: string[];
  /** Text content allowed (xs:string elements, mixed="true" complex types). */
  text: boolean;
}

/** junit-10.xsd's global elements, as the XSD declares them. */
const JUNIT_10: Record<string, ElementRule> = {
  // <xs:element name="testsuites">: a sequence of testsuite; attributes name, time, tests, failures, errors.
  testsuites: { attributes: ["name", "time", "tests", "failures", "errors"], children: ["testsuite"], text: false },
  // <xs:element name="testsuite">: a choice of testsuite, properties, testcase, system-out, system-err.
  testsuite: {
    attributes: [
      "name",
      "tests",
      "failures",
      "errors",
      "group",
      "time",
      "skipped",
      "timestamp",
      "hostname",
      "id",
      "package",
      "file",
      "log",
      "url",
    ],
    required: ["name", "tests", "failures", "errors"],
    children: ["testsuite", "properties", "testcase", "system-out", "system-err"],
    text: false,
  },
  testcase: {
    attributes: ["name", "time", "classname", "group"],
    required: ["name"],
    children: ["skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError", "system-out", "system-err"],
    text: false,
  },
  failure: { attributes: ["type", "message"], children: [], text: true },
  error: { attributes: ["type", "message"], children: [], text: true },
  skipped: { attributes: ["type", "message"], children: [], text: true },
  properties: { attributes: [], children: ["property"], text: false },
  property: { attributes: ["name", "value"], required: ["name", "value"], children: [], text: false },
  "system-out": { attributes: [], children: [], text: true },
  "system-err": { attributes: [], children: [], text: true },
};
/** The XSD's SUREFIRE_TIME pattern, for `time` on testsuites and testsuite. */
const SUREFIRE_TIME = /^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$/;

interface Node {
  "#name": string;
  $?: Record<string, string>;
  _?: string;
  $$?: Node[];
}

/** Every way `xml` breaks the rules above; empty when it follows them. */
async function junit10Problems(xml: string): Promise<string[]> {
  const parsed = (await parseStringPromise(xml, { explicitChildren: true, preserveChildrenOrder: true, explicitRoot: true })) as Record<
    string,
    Node
  >;
  const [root] = Object.values(parsed);
  const problems: string[] = [];
  const visit = (node: Node, where: string) => {
    const name = node["#name"];
    const rule = JUNIT_10[name];
    if (!rule) return problems.push(`${where}: <${name}> is not an element of junit-10.xsd`);
    const attrs = Object.keys(node.$ ?? {});
    for (const a of attrs) if (!rule.attributes.includes(a)) problems.push(`${where}: <${name}> may not carry the attribute "${a}"`);
    for (const a of rule.required ?? []) if (!attrs.includes(a)) problems.push(`${where}: <${name}> lacks the required attribute "${a}"`);
    if (node.$?.time !== undefined && (name === "testsuite" || name === "testsuites") && !SUREFIRE_TIME.test(node.$.time))
      problems.push(`${where}: time="${node.$.time}" is not a SUREFIRE_TIME`);
    if (!rule.text && node._?.trim()) problems.push(`${where}: <${name}> may hold no text`);
    for (const [i, child] of (node.$$ ?? []).entries()) {
      if (!rule.children.includes(child["#name"])) problems.push(`${where}: <${name}> may not hold <${child["#name"]}>`);
      visit(child, `${where}/${child["#name"]}[${i}]`);
    }
    return;
  };
  if (!root) return ["no root element"];
  visit(root, root["#name"]);
  return problems;
}

const run = (over: Partial<CiReport["run"]> = {}): CiReport["run"] => ({
  id: "3d1f0c4e-8a55-4a36-9a43-0b7c0f8d2e11",
  status: "SUCCEEDED",
  error: null,
  k6ExitCode: 0,
  summary: null,
  steps: [],
  target: { name: "staging-api", kind: "endpoint" },
  workload: { name: "script-load-test.js" },
  thresholds: [
    { metric: "checks", expression: "rate>0.9", ok: true },
    { metric: "http_req_duration", expression: "p(95)<500", ok: false },
  ],
  thresholdsOk: false,
  ...over,
});

const rule = (text: string) => ({ text, metric: "p95", verdictMetric: "p95", negated: false }) as never;

/** A report with every kind of test case: passed, failed (threshold and rule), skipped (inconclusive), and the run. */
const full: CiReport = {
  run: run(),
  runUrl: "https://bench.example.com/runs/3d1f0c4e",
  comparison: {
    baselineId: "a",
    baselineIds: ["a"],
    runCvPercent: 10,
    samples: null,
    url: "https://bench.example.com/compare?g=baseline:a&g=candidate:b",
    results: [
      { rule: rule("p95 > +10%"), outcome: "fail", change: null, message: 'p95 rose by 30% & more <"beyond the limit">' },
      { rule: rule("goodput < -1pp"), outcome: "pass", change: null, message: "within" },
      { rule: rule("p99 > +20ms"), outcome: "inconclusive", change: null, message: "the interval crosses the limit" },
    ] as never,
  },
};

describe("--junit against junit-10.xsd", () => {
  it("the checker refuses what the XSD refuses: skipped on <testsuites>, a testcase without a name, text in a testsuite", async () => {
    expect(await junit10Problems('<testsuites skipped="1"><testsuite name="s" tests="0" failures="0" errors="0"/></testsuites>')).toEqual([
      'testsuites: <testsuites> may not carry the attribute "skipped"',
    ]);
    expect(
      await junit10Problems('<testsuite name="s" tests="1" failures="0" errors="0"><testcase classname="c"/>text</testsuite>'),
    ).toEqual(["testsuite: <testsuite> may hold no text", 'testsuite/testcase[0]: <testcase> lacks the required attribute "name"']);
    expect(await junit10Problems('<testsuites><testsuite name="s" tests="1"><case/></testsuite></testsuites>')).toEqual([
      'testsuites/testsuite[0]: <testsuite> lacks the required attribute "failures"',
      'testsuites/testsuite[0]: <testsuite> lacks the required attribute "errors"',
      "testsuites/testsuite[0]: <testsuite> may not hold <case>",
      "testsuites/testsuite[0]/case[0]: <case> is not an element of junit-10.xsd",
    ]);
  });

  it("a report with passed, failed, skipped and errored cases follows it, and counts them on <testsuite>", async () => {
    const xml = junitXml(full);
    expect(await junit10Problems(xml)).toEqual([]);
    expect(xml).toMatch(/<testsuites name="opsbench" tests="6" failures="2" errors="0">/);
    expect(xml).toContain('tests="6" failures="2" errors="0" skipped="1">');
    const failedRun = junitXml({
      ...full,
      run: run({ status: "FAILED", error: "provision: no such image", thresholds: [] }),
      comparison: null,
    });
    expect(await junit10Problems(failedRun)).toEqual([]);
    expect(failedRun).toContain("<error ");
  });

  it("with no baseline yet (--if-no-baseline pass) each rule is a skipped case giving the reason, and the file still follows it", async () => {
    const notice = "no baseline yet for workload script-load-test.js on target staging-api: this run becomes the first";
    const xml = junitXml({
      run: run({ thresholds: [], thresholdsOk: true }),
      runUrl: "https://bench.example.com/runs/x",
      comparison: null,
      noBaseline: { message: notice, rules: ["p95 > +10%", "goodput < -1pp"] },
    });
    expect(await junit10Problems(xml)).toEqual([]);
    expect(xml.match(/<skipped message="no baseline yet/g)).toHaveLength(2);
    expect(xml).toContain('tests="3" failures="0" errors="0" skipped="2">');
  });
});
