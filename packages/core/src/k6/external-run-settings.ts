// What a load engine started elsewhere needs to feed an external run (`opsbench run --external`, POST
// /api/v1/runs/external): the ingest URL, the opsbench-engine command line of each generator (an execution segment
// each, so their histograms add up to the whole test), the same for a stock k6 piped into `opsbench ingest`, and a
// Kubernetes indexed Job of engine pods with the Secret holding the run's ingest token. One place, so the API's answer
// and the CLI print the same thing.

/**
 * The Kubernetes Job (and its token's Secret): N engine pods (completionMode Indexed, completions = parallelism = N),
 * each taking the execution segment of its completion index (JOB_COMPLETION_INDEX, set by Kubernetes), as the command
 * lines do for N machines. The image is infra/engine-job/Dockerfile's; script.js comes from the ConfigMap.
 * Shell variables are written without braces: ${KEY} is this template's placeholder.
 */
const JOB_TEMPLATE = `apiVersion: v1
kind: Secret
metadata:
  name: \${NAME}-ingest
  labels:
    app.kubernetes.io/name: opsbench-engine
    opsbench.dev/run: "\${RUN_ID}"
type: Opaque
stringData:
  # The run-scoped ingest token: it writes to this one run only, and expires.
  token: \${TOKEN}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: \${NAME}
  labels:
    app.kubernetes.io/name: opsbench-engine
    opsbench.dev/run: "\${RUN_ID}"
spec:
  completionMode: Indexed
  completions: \${PARALLELISM}
  parallelism: \${PARALLELISM}
  # A retried pod would send its segment's seconds twice: a failed generator fails the Job.
  backoffLimit: 0
  ttlSecondsAfterFinished: 86400
  template:
    metadata:
      labels:
        app.kubernetes.io/name: opsbench-engine
        opsbench.dev/run: "\${RUN_ID}"
    spec:
      restartPolicy: Never
      securityContext:
        runAsNonRoot: true
        runAsUser: 65534
        runAsGroup: 65534
      containers:
        - name: engine
          # opsbench-engine (infra/engine-job/Dockerfile).
          image: \${IMAGE}
          command: ["/bin/sh", "-ec"]
          # Pod i of N runs execution segment i/N:(i+1)/N of the test.
          args:
            - |
              n=\${PARALLELISM}
              i=$JOB_COMPLETION_INDEX
              at() { if [ "$1" -eq 0 ]; then echo 0; elif [ "$1" -eq "$n" ]; then echo 1; else echo "$1/$n"; fi; }
              sequence=0
              k=1
              while [ "$k" -le "$n" ]; do sequence="$sequence,$(at "$k")"; k=$((k + 1)); done
              exec opsbench-engine run --out "opsbench=\${INGEST_URL}" --execution-segment "$(at "$i"):$(at "$((i + 1))")" --execution-segment-sequence "$sequence" /scripts/script.js
          env:
            - name: OPSBENCH_INGEST_TOKEN
              valueFrom:
                secretKeyRef:
                  name: \${NAME}-ingest
                  key: token
          volumeMounts:
            - name: script
              mountPath: /scripts
              readOnly: true
          securityContext:
            allowPrivilegeEscalation: false
            capabilities:
              drop: ["ALL"]
      volumes:
        - name: script
          configMap:
            name: \${SCRIPT_CONFIGMAP}
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
  /** One opsbench-engine command line per generator (with its execution segment when there are several). */
  k6Commands: string[];
  /** The same for a stock k6: its JSON output piped into `opsbench ingest`, which folds it and posts it. */
  stockK6Commands: string[];
  /** The Kubernetes indexed Job of engine pods and the Secret with the token, for `kubectl apply -f -`. */
  kubernetesJob: string;
}

export function externalRunSettings(input: {
  runId: string;
  token: string;
  /** The server's address as the engine reaches it. */
  baseUrl: string;
  generators: number;
  script: string;
  image: string;
  scriptConfigmap: string;
}): ExternalRunSettings {
  const ingestUrl = new URL(`/api/v1/runs/${input.runId}/ingest`, input.baseUrl).toString();
  const base = new URL(input.baseUrl).origin;
  const n = input.generators;
  const segment = (i: number) => (n > 1 ? ` ${executionSegmentArgs(i, n).join(" ")}` : "");
  const k6Commands = Array.from(
    { length: n },
    (_, i) => `OPSBENCH_INGEST_TOKEN=${input.token} opsbench-engine run --out opsbench=${ingestUrl}${segment(i)} ${input.script}`,
  );
  const stockK6Commands = Array.from({ length: n }, (_, i) => {
    const part = n > 1 ? ` --segment ${executionSegmentArgs(i, n)[1]}` : "";
    return `k6 run --out json=-${segment(i)} ${input.script} | OPSBENCH_INGEST_TOKEN=${input.token} opsbench ingest --run ${input.runId} --url ${base}${part}`;
  });
  const kubernetesJob = fillTemplate(JOB_TEMPLATE, {
    NAME: `opsbench-${input.runId.slice(0, 8)}`,
    RUN_ID: input.runId,
    PARALLELISM: String(n),
    SCRIPT_CONFIGMAP: input.scriptConfigmap,
    IMAGE: input.image,
    INGEST_URL: ingestUrl,
    TOKEN: input.token,
  });
  return { ingestUrl, k6Commands, stockK6Commands, kubernetesJob };
}
