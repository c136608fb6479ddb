import { describe, expect, it } from "vitest";
import { base64ToBytes } from "../src/histograms/base64-bytes";
import { HISTOGRAM_ALPHA } from "../src/histograms/histogram";
import { decodeBuckets } from "../src/histograms/histogram-encoding";
import { k6ImportAggregator } from "../src/k6/k6-import";
import { k6JsonStream, SETTLE_SECONDS } from "../src/k6/k6-json-stream";
import type { K6OutputLine } from "../src/k6/k6-output-format";
import { k6OutputLine, MAX_SERIES_NAME_LENGTH, OTHER_METRIC_SERIES } from "../src/k6/k6-output-format";

const T0 = Date.UTC(2026, 10, 21, 19, 28, 1); // a whole second
const S0 = T0 / 1000;

const point = (metric: string, offsetMs: number, value: number, tags: Record<string, string> | null = {}) =>
  JSON.stringify({ type: "Point", data: { time: new Date(T0 + offsetMs).toISOString().replace("Z", "123+00:00"), value, tags }, metric });
const declare = (metric: string, type: string, contains: string, thresholds: string[] = []) =>
  JSON.stringify({ type: "Metric", data: { type, contains, tainted: null, thresholds, submetrics: null }, metric });
const req = (offsetMs: number, value: number, tags: Record<string, string> = {}) =>
  point("http_req_duration", offsetMs, value, { name: "home", status: "200", expected_response: "true", ...tags });

const of = <T extends K6OutputLine["t"]>(lines: K6OutputLine[], t: T) =>
  lines.filter((l): l is Extract<K6OutputLine, { t: T }> => l.t === t);

describe("k6 JSON output folded as it comes (a stock k6's results)", () => {
  it("hands over a second only once it has settled, on the earlier of k6's clock and the caller's", () => {
    const f = k6JsonStream();
    for (const l of [declare("http_req_duration", "trend", "time"), req(100, 10), req(900, 20), req(1500, 30)])
      expect(f.line(l)).toBeNull();
    // The caller's clock is far ahead (a replayed file): k6's latest sample (second 1) decides, nothing is settled.
    const first = f.flush(T0 + 3_600_000);
    expect(first.map((l) => l.t)).toEqual(["meta"]);
    expect(first[0]).toMatchObject({ alpha: HISTOGRAM_ALPHA, version: 4 });
    f.line(req(SETTLE_SECONDS * 1000 + 50, 40)); // in second 2: second 0 has settled on k6's clock...
    // ...but not yet on the caller's (a second settles SETTLE_SECONDS whole seconds on).
    expect(f.flush(T0 + SETTLE_SECONDS * 1000 - 1)).toEqual([]);
    const settled = f.flush(T0 + SETTLE_SECONDS * 1000);
    expect(of(settled, "http").map((l) => [l.s, l.n, l.sum])).toEqual([[S0, 2, 30]]);
    expect(settled.every((l) => k6OutputLine.safeParse(l).success)).toBe(true);
    // A very late sample of an already handed-over second makes another line of that second.
    f.line(req(200, 5));
    const rest = f.end();
    expect(of(rest, "http").map((l) => [l.s, l.n])).toEqual([
      [S0, 1],
      [S0 + 1, 1],
      [S0 + 2, 1],
    ]);
    expect(rest.at(-1)).toEqual({ t: "end", firstMs: T0 + 100.123, lastMs: T0 + 2050.123 });
    expect(f.requests).toBe(5);
  });

  it("folds request and check names over MAX_SERIES_NAME_LENGTH into other and (other), as the engine does", () => {
    const long = "x".repeat(MAX_SERIES_NAME_LENGTH + 1);
    const fits = "y".repeat(MAX_SERIES_NAME_LENGTH);
    const f = k6JsonStream();
    for (const l of [
      req(10, 1, { name: long }),
      req(20, 1, { name: fits }),
      point("checks", 30, 1, { check: long }),
      point("checks", 40, 1, { check: fits }),
    ])
      f.line(l);
    const rest = f.end();
    expect(of(rest, "http").map((l) => l.name)).toEqual(["other", fits]);
    expect(of(rest, "metric").map((l) => l.name)).toEqual([OTHER_METRIC_SERIES, fits]);
  });

  it("makes the cells of the k6 file import: name, status class, failed apart, the same histogram", () => {
    const lines = [
      req(10, 12.5),
      req(20, 13.5, { name: "", url: "http://t/x" }),
      req(30, 120, { status: "500", expected_response: "false" }),
      req(40, 100, { status: "500", expected_response: "true" }),
      req(50, 1000, { status: "0", error_code: "1050", expected_response: "false" }),
      req(60, 3, { status: "0", error_code: "1211", expected_response: "false" }),
    ];
    const f = k6JsonStream();
    for (const l of lines) f.line(l);
    const http = of(f.end(), "http");
    expect(http.map((l) => [l.name, l.class, l.n, l.fail])).toEqual([
      ["home", "2xx", 1, 0],
      ["home", "5xx", 1, 0],
      ["home", "5xx", 1, 1],
      ["home", "connection", 1, 1],
      ["home", "timeout", 1, 1],
      ["http://t/x", "2xx", 1, 0],
    ]);
    const imported = k6ImportAggregator("json");
    for (const [i, l] of lines.entries()) imported.line(l, i + 1);
    const cells = imported.finish().cells;
    expect(http.map((l) => decodeBuckets(base64ToBytes(l.b)))).toEqual(cells.map((c) => c.buckets));
    expect(http.map((l) => [l.sum, l.min, l.max])).toEqual(cells.map((c) => [c.sum, c.min, c.max]));
  });

  it("folds VUs, data and iterations per second, checks per name, and a script's own metrics by declared type", () => {
    const f = k6JsonStream();
    const lines = [
      declare("vus", "gauge", "default"),
      point("vus", 0, 1, null),
      point("vus", 500, 3, null),
      point("vus_max", 0, 5, null),
      point("data_sent", 100, 80),
      point("data_sent", 200, 20),
      point("iterations", 300, 1),
      point("iterations", 400, 1),
      point("dropped_iterations", 400, 2),
      point("checks", 100, 1, { check: "is 200" }),
      point("checks", 200, 0, { check: "is 200" }),
      point("checks", 300, 1, { check: "has body" }),
      declare("orders", "counter", "default"),
      point("orders", 100, 2),
      point("orders", 200, 3),
      declare("wait_ms", "trend", "time"),
      point("wait_ms", 100, 7),
      point("undeclared", 100, 7),
      point("http_req_waiting", 100, 7),
    ];
    for (const l of lines) expect(f.line(l)).toBeNull();
    const out = f.end();
    expect(of(out, "load")).toEqual([{ t: "load", s: S0, vus: 3, vusMax: 5, sent: 100, received: 0, iterations: 2, dropped: 2 }]);
    expect(of(out, "metric").map((m) => [m.kind, m.name, m.unit, m.n, m.pass, m.sum, Boolean(m.b)])).toEqual([
      ["check", "has body", "", 1, 1, 1, false],
      ["check", "is 200", "", 2, 1, 1, false],
      ["counter", "orders", "", 2, 2, 5, false],
      ["trend", "wait_ms", "ms", 1, 1, 7, true],
    ]);
    expect(out.every((l) => k6OutputLine.safeParse(l).success)).toBe(true);
  });

  it("says why a line is not k6 JSON, and carries declared thresholds on a plan line only when asked", () => {
    const f = k6JsonStream({ thresholds: true });
    expect(f.line("not json")).toMatch(/^not JSON/);
    expect(f.line('{"type":"Point","metric":"x","data":{"time":"yesterday","value":1}}')).toMatch(/data.time/);
    expect(f.line("")).toBeNull();
    f.line(declare("http_req_duration", "trend", "time", ["p(95)<500"]));
    f.line(declare("checks", "rate", "default", ["rate>0.9"]));
    const plan = of(f.flush(T0), "plan");
    expect(plan).toHaveLength(1);
    expect(plan[0]!.thresholds).toEqual({ http_req_duration: ["p(95)<500"], checks: ["rate>0.9"] });
    // Sent again only when the thresholds change.
    expect(of(f.flush(T0), "plan")).toEqual([]);
    const quiet = k6JsonStream();
    quiet.line(declare("checks", "rate", "default", ["rate>0.9"]));
    expect(of(quiet.end(), "plan")).toEqual([]);
    expect(quiet.end().at(-1)).toEqual({ t: "end" });
  });
});
