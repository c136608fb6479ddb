// What a k6 started elsewhere needs to feed an external run (`opsbench run --external`, POST /api/v1/runs/external):
// the ingest URL, the k6 command line of each generator (an execution segment each, so their histograms add up to
// the whole test) and a k6-operator TestRun with the Secret holding the run's ingest token. One place, so the API's
// answer and the CLI print the same thing.

/** The k6-operator TestRun (and its token's Secret); k6-operator gives each of the `parallelism` runners its own segment. */
const TESTRUN_TEMPLATE = `apiVersion: v1
kind: Secret
metadata:
  name: \${NAME}-ingest
type: Opaque
stringData:
  # The run-scoped ingest token: it writes to this one run only, and expires.
  token: \${TOKEN}
---
apiVersion: k6.io/v1alpha1
kind: TestRun
metadata:
  name: \${NAME}
spec:
  parallelism: \${PARALLELISM}
  script:
    configMap:
      name: \${SCRIPT_CONFIGMAP}
      file: script.js
  arguments: --out opsbench=\${INGEST_URL}
  runner:
    # k6 built with the opsbench output extension (infra/k6-operator/Dockerfile).
    image: \${IMAGE}
    env:
      - name: K6_OPSBENCH_TOKEN
        valueFrom:
          secretKeyRef:
            name: \${NAME}-ingest
            key: token
`;

/** \${KEY} -> its value; a placeholder without a value is left as it is (and would fail kubectl's validation). */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\$\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}

/** k6's --execution-segment and --execution-segment-sequence for segment i of n equal parts. */
export function executionSegmentArgs(segment: number, count: number): string[] {
  const at = (i: number) => (i === 0 ? "0" : i === count ? "1" : `${i}/${count}`);
  const sequence = Array.from({ length: count + 1 }, (_, i) => at(i)).join(",");
  return ["--execution-segment", `${at(segment)}:${at(segment + 1)}`, "--execution-segment-sequence", sequence];
}

export interface ExternalRunSettings {
  ingestUrl: string;
  /** One k6 command line per generator (with its execution segment when there are several). */
  k6Commands: string[];
  /** The k6-operator TestRun and the Secret with the token, for `kubectl apply -f -`. */
  testRun: string;
}

export function externalRunSettings(input: {
  runId: string;
  token: string;
  /** The server's address as k6 reaches it. */
  baseUrl: string;
  generators: number;
  script: string;
  image: string;
  scriptConfigmap: string;
}): ExternalRunSettings {
  const ingestUrl = new URL(`/api/v1/runs/${input.runId}/ingest`, input.baseUrl).toString();
  const n = input.generators;
  const k6Commands = Array.from({ length: n }, (_, i) => {
    const split = n > 1 ? ` ${executionSegmentArgs(i, n).join(" ")}` : "";
    return `K6_OPSBENCH_TOKEN=${input.token} k6 run --out opsbench=${ingestUrl}${split} ${input.script}`;
  });
  const testRun = fillTemplate(TESTRUN_TEMPLATE, {
    NAME: `opsbench-${input.runId.slice(0, 8)}`,
    PARALLELISM: String(n),
    SCRIPT_CONFIGMAP: input.scriptConfigmap,
    IMAGE: input.image,
    INGEST_URL: ingestUrl,
    TOKEN: input.token,
  });
  return { ingestUrl, k6Commands, testRun };
}
