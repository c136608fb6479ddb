// Each k6 threshold of a run and whether it held, from k6's end-of-test summary (--summary-export: per metric,
// `thresholds: { "p(95)<500": <failed?> }`). What `opsbench run --junit` writes a test case for.
export interface ThresholdResult {
  metric: string;
  expression: string;
  ok: boolean;
}

export function thresholdResults(k6Summary: unknown): ThresholdResult[] {
  const metrics = (k6Summary as { metrics?: unknown } | null)?.metrics;
  if (!metrics || typeof metrics !== "object") return [];
  const out: ThresholdResult[] = [];
  for (const [metric, m] of Object.entries(metrics as Record<string, { thresholds?: unknown }>)) {
    const t = m?.thresholds;
    if (!t || typeof t !== "object") continue;
    for (const [expression, failed] of Object.entries(t as Record<string, unknown>))
      if (typeof failed === "boolean") out.push({ metric, expression, ok: !failed });
  }
  return out.sort((a, b) => a.metric.localeCompare(b.metric) || a.expression.localeCompare(b.expression));
}
