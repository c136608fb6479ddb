// @opsbench/core, the pure domain (no I/O); every importer uses this index. What is where in src/:
//   charts/      downsampling of series for charts
//   compare/     comparisons: samples, verdicts, run rollups, the view's schema, regression gate rules
//   cost/        cost models, pricing and break-even; catalogs/ holds the built-in price sheets
//   kinds/       the target kinds, one file each (defineKind), and TARGET_KINDS: the one list of kinds
//   histograms/  the latency histogram (sparse log buckets), its compact encoding, base64 of bytes
//   k6/          the k6 script compiler, k6's output lines, thresholds, plan check, k6 file import,
//                the http series cap, and the settings of a k6 started elsewhere (external runs)
//   load-hosts/  which hosts load may go to (egress policy) and how a run's load host was admitted; the same rule for
//                the server's own requests for a user (webhooks, SMTP: outbound-hosts.ts)
//   exports/     the per-second series a run's results export sends (Prometheus remote write, OTLP), their names
//   notifications/ the events a workspace is notified of, their payload and each channel's body (JSON, Slack, e-mail)
//   runs/        a run's status machine, summary, latency/throughput/metric summaries, measured cells,
//                validity flags, infra point detail, provenance (commit, branch, PR, build, labels; from CI's env)
//   series/      a series of runs over time: change detection (penalised likelihood, the runs' intervals as
//                weights) and the commit range a change falls in
//   shares/      what a share link shows
//   statistics/  statistics across repetitions, verdict methods (Welch, block bootstrap), study tables, seeded PRNG
//   schedules/   a schedule's cron pattern, time zone, what it starts, its next ticks
//   studies/     study specs, factors, run order, cells, progress; the demo and IoT studies and their targets
//   targets/     target specs by kind (local, kubernetes, cloud), the schemas derived from kinds/, env and secrets, vCPUs, credentials, kubeconfig,
//                the local autoscaler
//   windows/     the load window a run's rates are taken over (on k6's clock) and where it came from; its analysis
//                window (after the warm-up, stated or detected by MSER-5)
//   workloads/   workload specs, script bundles, presets, load profiles, rates, templates, the k6 runtime helpers
//   workspaces/  member roles and a workspace's limits
//   (root)       process-env.ts and connection-urls.ts (the processes' shared variables), local-services.ts (its own
//                export), stored-json.ts (the schema of every JSON column)
export * from "./histograms/histogram";
export * from "./histograms/histogram-encoding";
export * from "./runs/latency-summary";
export * from "./runs/measured-cells";
export * from "./runs/measured-summary";
export * from "./runs/run-summary";
export * from "./runs/throughput";
export * from "./runs/saturation";
export * from "./windows/load-window";
export * from "./windows/analysis-window";
export * from "./kinds";
export * from "./targets/local-specs";
export * from "./kinds/target-schemas";
export * from "./targets/cloud-target-specs";
export * from "./targets/target-env";
export * from "./targets/target-database";
export * from "./targets/target-vcpus";
export * from "./workloads/workload-spec";
export * from "./k6/k6-script";
export * from "./workloads/compile-declarative";
export * from "./workloads/script-bundle";
export * from "./workloads/script-env";
export * from "./k6/k6-thresholds";
export * from "./k6/k6-merged-thresholds";
export * from "./compare/gate-rules";
export * from "./workloads/presets";
export * from "./workloads/load-profile";
export * from "./workloads/describe-workload";
export * from "./workloads/loopback-hint";
export * from "./workloads/resolve-rate";
export * from "./workloads/template";
export * from "./workloads/loopback-hint";
export { K6_RUNTIME_SOURCE, loadRuntime, type Runtime } from "./workloads/runtime";
export * from "./k6/k6-output-format";
export * from "./runs/metric-summary";
export * from "./runs/run-status";
export * from "./runs/provenance";
export * from "./runs/series-key";
export * from "./k6/k6-import";
export * from "./k6/k6-json-stream";
export * from "./k6/k6-import-upload";
export * from "./k6/http-series-cap";
export * from "./histograms/base64-bytes";
export * from "./statistics/seeded-random";
export * from "./series/change-detection";
export * from "./series/commit-range";
export * from "./process-env";
export * from "./load-hosts/load-host-policy";
export * from "./load-hosts/load-admission";
export * from "./load-hosts/save-time-refusal";
export * from "./load-hosts/outbound-hosts";
export * from "./notifications/notification-events";
export * from "./exports/export-series";
export * from "./k6/k6-plan-check";
export * from "./connection-urls";
export * from "./compare";
export * from "./statistics/repetition-stats";
export * from "./statistics/domain-interval";
export * from "./statistics/welch";
export * from "./statistics/block-bootstrap";
export { runValueInterval, type RunValueInterval } from "./statistics/verdict-intervals";
export * from "./statistics/verdict-method";
export * from "./statistics/verdict-calibration";
export * from "./statistics/rule-power";
export * from "./statistics/study-planner";
export * from "./statistics/study-definitions";
export * from "./statistics/merged-repetitions";
export * from "./statistics/study-tables";
export * from "./studies/study-order";
export * from "./charts/downsample";
export * from "./studies/study-spec";
export * from "./studies/study-factors";
export * from "./studies/study-progress";
export * from "./runs/validity-flags";
export * from "./targets/autoscaler";
export * from "./cost";
export * from "./studies/study-cells";
export * from "./shares/share-subject";
export * from "./runs/infra-point-detail";
export * from "./stored-json";
export * from "./page-cursor";
export * from "./studies/demo-study";
export * from "./studies/devops-noops-targets";
export * from "./studies/iot-study";
export * from "./workspaces/workspace-limits";
export * from "./workspaces/workspace-roles";
export * from "./targets/credentials";
export * from "./targets/kubeconfig";
export * from "./targets/kubernetes-spec";
export * from "./k6/external-run-settings";
export * from "./metrics/metric-catalog";
export * from "./compare/request-latency";
export * from "./schedules/schedule-spec";
