// The Kubernetes HPA's replica rule, as a pure function, so local-service
// scales the way a Deployment + HPA does (docs/local-engine.md):
//   desired = ceil(current x currentMetric / target), no change within the
//   tolerance, scale-up at once, scale-down only to the highest recommendation
//   of the stabilization window. Mirrors pkg/controller/podautoscaler
//   (replica_calculator.go, horizontal.go) for the CPU-utilization case.

export interface CpuSample {
  /** CPU utilisation of each ready replica, in % of its CPU request (100 = one request's worth). */
  readyCpuPercent: number[];
  /** Replicas started but not ready yet (not in the load balancer). */
  unready: number;
}

export interface HpaRule {
  targetCpuPercent: number;
  /** Relative band around the target in which nothing changes (HPA default 0.1). */
  tolerance: number;
}

/**
 * The raw recommendation (before stabilization and min/max), from the ready
 * replicas' utilisation. As the HPA does: when scaling up, replicas that are
 * not ready yet count as 0% (they will take load soon, so do not over-shoot),
 * and if that flips the decision or brings it within tolerance, nothing changes.
 */
export function hpaRecommendation(current: number, sample: CpuSample, rule: HpaRule): number {
  const ready = sample.readyCpuPercent.length;
  if (ready === 0) return current; // no metrics: the HPA skips the cycle
  const avg = sample.readyCpuPercent.reduce((a, b) => a + b, 0) / ready;
  const ratio = avg / rule.targetCpuPercent;
  if (Math.abs(ratio - 1) <= rule.tolerance) return current;
  if (ratio > 1 && sample.unready > 0) {
    const dampened = (avg * ready) / (ready + sample.unready) / rule.targetCpuPercent;
    if (dampened <= 1 + rule.tolerance) return current;
    return Math.max(current, Math.ceil(dampened * (ready + sample.unready)));
  }
  return Math.ceil(ratio * ready);
}

export interface Recommendation {
  at: number;
  replicas: number;
}

/**
 * Stabilization (horizontal.go, stabilizeRecommendationWithBehaviors): the
 * result never goes below the highest recommendation of the scale-down window,
 * nor above the lowest of the scale-up window (0 by default: up at once).
 * `history` must already hold the current recommendation.
 */
export function stabilize(
  current: number,
  recommendation: number,
  history: Recommendation[],
  now: number,
  windows: { scaleUpMs: number; scaleDownMs: number },
): number {
  let up = recommendation;
  let down = recommendation;
  for (const r of history) {
    if (r.at > now - windows.scaleUpMs) up = Math.min(up, r.replicas);
    if (r.at > now - windows.scaleDownMs) down = Math.max(down, r.replicas);
  }
  let result = current;
  if (result < up) result = up;
  if (result > down) result = down;
  return result;
}

export interface AutoscalerConfig extends HpaRule {
  minReplicas: number;
  maxReplicas: number;
  scaleUpStabilizationMs: number;
  scaleDownStabilizationMs: number;
}

export interface AutoscalerDecision {
  /** The replica count to converge to. */
  desired: number;
  /** What the utilisation alone asked for (before stabilization and min/max). */
  recommendation: number;
  averageCpuPercent: number | null;
  reason: "within-tolerance" | "scale-up" | "scale-down" | "stabilized" | "at-limit" | "no-metrics";
}

/**
 * One sync period of the autoscaler: keeps its own recommendation history
 * (trimmed to the longest window). Pure apart from that history; time is passed in.
 */
export class HpaAutoscaler {
  private history: Recommendation[] = [];

  constructor(readonly config: AutoscalerConfig) {}

  /** Forget past recommendations (after a reset to the baseline). */
  clear(): void {
    this.history = [];
  }

  decide(current: number, sample: CpuSample, now: number): AutoscalerDecision {
    const c = this.config;
    const ready = sample.readyCpuPercent.length;
    const averageCpuPercent = ready ? sample.readyCpuPercent.reduce((a, b) => a + b, 0) / ready : null;
    const raw = hpaRecommendation(current, sample, c);
    // As the HPA does: the unclamped recommendation is stored and stabilized; min/max come last.
    this.history.push({ at: now, replicas: raw });
    const keep = Math.max(c.scaleUpStabilizationMs, c.scaleDownStabilizationMs);
    this.history = this.history.filter((r) => r.at > now - keep || r.at === now);
    const stabilized = stabilize(current, raw, this.history, now, {
      scaleUpMs: c.scaleUpStabilizationMs,
      scaleDownMs: c.scaleDownStabilizationMs,
    });
    const desired = clamp(stabilized, c.minReplicas, c.maxReplicas);
    let reason: AutoscalerDecision["reason"];
    if (averageCpuPercent === null) reason = "no-metrics";
    else if (desired > current) reason = "scale-up";
    else if (desired < current) reason = "scale-down";
    else if (raw === current) reason = "within-tolerance";
    else if (stabilized !== current) reason = "at-limit";
    else reason = "stabilized";
    return { desired, recommendation: raw, averageCpuPercent, reason };
  }
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, n));
}
