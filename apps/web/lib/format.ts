// How numbers appear on the pages. Values inside data-testid elements are plain
// numbers a test can parse back with Number(): no thousands separators, no units,
// a fixed number of decimals; "—" when there is no value yet.
export const NO_VALUE = "—";

/** A number with `decimals` decimals (a catalog metric's), or NO_VALUE. */
export const fixed = (v: number | null | undefined, decimals: number) =>
  v === null || v === undefined || !Number.isFinite(v) ? NO_VALUE : v.toFixed(decimals);

/** Counts: integer, e.g. "12345". */
export const fmtCount = (v: number | null | undefined) => fixed(v, 0);
/** Latency in ms: 2 decimals, e.g. "12.34". */
export const fmtMs = (v: number | null | undefined) => fixed(v, 2);
/** Percent: 2 decimals, e.g. "99.50". */
export const fmtPercent = (v: number | null | undefined) => fixed(v, 2);
/** Requests per second: 1 decimal, e.g. "1234.5". */
export const fmtRps = (v: number | null | undefined) => fixed(v, 1);

/** A duration in ms as a short human string: "850 ms", "12.3 s", "4 m 05 s". */
export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return NO_VALUE;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  return `${m} m ${String(rest).padStart(2, "0")} s`;
}

/** An ISO timestamp as "2025-11-21 19:30:05" in UTC (stable between server and browser). */
export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return NO_VALUE;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** The currency a price unit is shown in: "EUR-cent" as EUR (100 of the unit each), any other unit as it is. */
export function moneyUnit(unit: string): { perUnit: number; shown: string } {
  const cents = /^(.+)-cents?$/i.exec(unit.trim());
  return cents ? { perUnit: 100, shown: cents[1]! } : { perUnit: 1, shown: unit };
}

/**
 * An amount of money for reading (not for data-testid values): a unit in cents ("EUR-cent") shown in its currency
 * ("EUR"), 3 significant digits below 100 ("0.0257 EUR", "12.3 EUR"), whole numbers with separators above
 * ("1,235 EUR"), NO_VALUE without one. A price sheet's 4-5 decimals of cents say more than the measurement knows.
 */
export function fmtMoney(v: number | null | undefined, unit: string): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NO_VALUE;
  const { perUnit, shown } = moneyUnit(unit);
  const amount = v / perUnit;
  const abs = Math.abs(amount);
  const text =
    abs === 0
      ? "0"
      : abs >= 100
        ? Math.round(amount).toLocaleString("en-US")
        : Number(amount.toPrecision(3)).toLocaleString("en-US", { maximumSignificantDigits: 3 });
  return `${text} ${shown}`;
}
