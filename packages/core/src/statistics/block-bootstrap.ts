// The spread of a single run's mean when its seconds are not independent.
// Per-second values of one run are autocorrelated (a queue that builds up stays
// up); treating them as independent samples called 48% of identical runs
// "significant" at a lag-1 autocorrelation of 0.8. A moving-block bootstrap
// resamples whole blocks of consecutive seconds, so the dependence inside a
// block is kept; the block length comes from the series' own autocorrelation
// (Politis & White 2004, with Patton, Politis & White 2009's correction).
import { mean } from "./repetition-stats";

/** Autocovariances R(0..maxLag) (divided by n, so the sequence is positive semi-definite). */
export function autocovariances(xs: readonly number[], maxLag: number): number[] {
  const n = xs.length;
  const m = mean(xs);
  const out: number[] = [];
  for (let k = 0; k <= Math.min(maxLag, n - 1); k++) {
    let s = 0;
    for (let i = 0; i + k < n; i++) s += (xs[i]! - m) * (xs[i + k]! - m);
    out.push(s / n);
  }
  return out;
}

/** The flat-top lag window of Politis & Romano. */
const flatTop = (t: number) => (Math.abs(t) <= 0.5 ? 1 : Math.abs(t) <= 1 ? 2 * (1 - Math.abs(t)) : 0);

export interface BlockLengthChoice {
  /** Seconds per block (at least 1). */
  blockLength: number;
  /** Lag-1 autocorrelation of the series. */
  lag1Autocorrelation: number;
  /** Flat-top estimate of the long-run variance sum_k R(k) (n x the variance of the mean). */
  longRunVariance: number;
  /** sum_k |k| R(k): how much of that the dependence between neighbours carries. */
  dependence: number;
}

/** The moving-block bootstrap's block length, chosen from the series' autocorrelation. */
export function chooseBlockLength(xs: readonly number[]): BlockLengthChoice {
  const n = xs.length;
  if (n < 4) throw new RangeError("a block length needs at least four values");
  const kn = Math.max(5, Math.ceil(Math.sqrt(Math.log10(n))));
  const maxLag = Math.min(n - 1, Math.ceil(Math.sqrt(n)) + kn);
  const r = autocovariances(xs, maxLag + kn);
  const rho = (k: number) => (r[0]! > 0 && k < r.length ? r[k]! / r[0]! : 0);
  const threshold = 2 * Math.sqrt(Math.log10(n) / n);
  // The smallest lag after which kn autocorrelations in a row are insignificant.
  let mHat = maxLag;
  for (let m = 0; m <= maxLag; m++) {
    let quiet = true;
    for (let k = 1; k <= kn && quiet; k++) quiet = Math.abs(rho(m + k)) < threshold;
    if (quiet) {
      mHat = m;
      break;
    }
  }
  const bigM = Math.min(2 * mHat, r.length - 1);
  let g = r[0]!;
  let dependence = 0;
  for (let k = 1; k <= bigM; k++) {
    const w = flatTop(k / bigM) * r[k]!;
    g += 2 * w;
    dependence += 2 * k * w;
  }
  const longRunVariance = Math.max(g, 0);
  const cap = Math.max(1, Math.min(Math.ceil(3 * Math.sqrt(n)), Math.floor(n / 3)));
  const optimal = longRunVariance > 0 ? ((2 * dependence ** 2) / ((4 / 3) * longRunVariance ** 2)) ** (1 / 3) * n ** (1 / 3) : 1;
  return {
    blockLength: Math.min(cap, Math.max(1, Math.round(optimal))),
    lag1Autocorrelation: rho(1),
    longRunVariance,
    dependence,
  };
}

export interface BlockBootstrapVariance {
  /** The variance of the series' mean. */
  variance: number;
  blockLength: number;
  /** Non-overlapping blocks the series holds: the degrees of freedom behind the estimate, plus one. */
  blocks: number;
  lag1Autocorrelation: number;
}

/**
 * The moving-block bootstrap's variance of the mean, computed exactly rather
 * than by Monte Carlo (the limit of infinitely many resamples: the variance of
 * the n-b+1 overlapping block means over the k = n/b blocks drawn), so it has no
 * seed and no resampling noise. The bootstrap underestimates the variance by
 * about sum|k|R(k) / (b n) (Kunsch 1989); that term is added back.
 */
export function blockBootstrapVariance(xs: readonly number[], blockLength?: number): BlockBootstrapVariance {
  const choice = chooseBlockLength(xs);
  const n = xs.length;
  const b = Math.min(blockLength ?? choice.blockLength, n);
  const blocks = Math.floor(n / b);
  // Centre the block means on the mean of all of them (the bootstrap's own expectation).
  const starts = n - b + 1;
  const blockMeans: number[] = [];
  let window = 0;
  for (let i = 0; i < b; i++) window += xs[i]!;
  blockMeans.push(window / b);
  for (let i = 1; i < starts; i++) {
    window += xs[i + b - 1]! - xs[i - 1]!;
    blockMeans.push(window / b);
  }
  const centre = mean(blockMeans);
  const spread = blockMeans.reduce((s, v) => s + (v - centre) ** 2, 0) / starts;
  const bootstrap = spread / blocks;
  const variance = bootstrap + Math.max(0, choice.dependence) / (b * n);
  return { variance, blockLength: b, blocks, lag1Autocorrelation: choice.lag1Autocorrelation };
}
