import { describe, expect, it } from "vitest";
import { bucketIndex } from "../src/histograms/histogram";
import {
  describeSkipped,
  detectK6Format,
  k6ImportAggregator,
  parseCsvRow,
  parseCsvTimestamp,
  parseRfc3339,
  statusClassOf,
} from "../src/k6/k6-import";
import { summarize } from "../src/runs/latency-summary";

const T0 = Date.UTC(2026, 10, 21, 19, 28, 1); // a whole second

const point = (metric: string, offsetMs: number, value: number, tags: Record<string, string> = {}) => {
  const d = new Date(T0 + offsetMs).toISOString().replace("Z", "123Z"); // nanosecond-style digits, as k6 writes
  return JSON.stringify({ metric, type: "Point", data: { time: d, value, tags } });
};
const metricLine = (metric: string) =>
  JSON.stringify({ type: "Metric", data: { name: metric, type: "trend", contains: "time", thresholds: [], submetrics: null }, metric });
const http = (offsetMs: number, value: number, tags: Record<string, string> = {}) =>
  point("http_req_duration", offsetMs, value, { name: "home", status: "200", expected_response: "true", ...tags });

function feed(format: "json" | "csv", lines: string[]) {
  const agg = k6ImportAggregator(format);
  for (const [i, l] of lines.entries()) agg.line(l, i + 1);
  return agg.finish();
}

describe("k6 result file import", () => {
  it("tells k6 JSON and k6 CSV from anything else by the first line", () => {
    expect(detectK6Format(metricLine("http_reqs"))).toBe("json");
    expect(detectK6Format(http(0, 1))).toBe("json");
    expect(detectK6Format("\uFEFFmetric_name,timestamp,metric_value,check,error")).toBe("csv");
    expect(detectK6Format("timestamp,metric_value,metric_name")).toBe("csv");
    expect(detectK6Format("# opsbench")).toBeNull();
    expect(detectK6Format('{"hello":"world"}')).toBeNull();
    expect(detectK6Format('{"type":"Point","metric":"x"')).toBeNull();
    expect(detectK6Format("a,b,c")).toBeNull();
  });

  it("counts corrupt and truncated lines with their line numbers, and keeps the good ones", () => {
    const r = feed("json", [
      metricLine("http_req_duration"), // 1
      http(10, 5), // 2
      "{not json", // 3
      JSON.stringify({ hello: "world" }), // 4: JSON, but no k6 line
      JSON.stringify({ type: "Point", metric: "http_req_duration", data: { time: "yesterday", value: 1 } }), // 5
      JSON.stringify({ type: "Point", metric: "http_req_duration", data: { time: "2026-11-21T19:28:01Z", value: "1" } }), // 6
      "", // 7: blank, carries nothing
      http(20, 7), // 8
      "[1,2]", // 9
      JSON.stringify({ type: "Sample", metric: "x", data: {} }), // 10
      http(30, 9).slice(0, 50), // 11: cut off
    ]);
    expect(r.requests).toBe(2);
    expect(r.lines).toBe(11);
    expect(r.skipped).toBe(7);
    expect(r.skippedExamples.map((e) => e.line)).toEqual([3, 4, 5, 6, 9]);
    expect(r.skippedExamples[0]!.reason).toMatch(/^not JSON/);
    expect(r.skippedExamples[1]!.reason).toMatch(/not a k6 JSON line/);
    expect(r.skippedExamples[2]!.reason).toMatch(/data.time "yesterday" is not a time/);
    expect(r.skippedExamples[3]!.reason).toMatch(/"data.value" is not a number/);
    expect(describeSkipped(r)).toMatch(/^7 lines skipped \(first: line 3: not JSON/);
    expect(describeSkipped({ skipped: 0, skippedExamples: [] })).toBeNull();
  });

  it("classes statuses as the opsbench output does, and counts expected_response=false as failures", () => {
    expect(statusClassOf("200", undefined)).toBe("2xx");
    expect(statusClassOf("302", undefined)).toBe("3xx");
    expect(statusClassOf("0", "1050")).toBe("timeout");
    expect(statusClassOf("", "1050")).toBe("timeout");
    expect(statusClassOf("0", "1212")).toBe("connection");
    expect(statusClassOf("0", "1101")).toBe("connection");
    expect(statusClassOf("0", "1300")).toBe("error");
    expect(statusClassOf(undefined, undefined)).toBe("error");
    const r = feed("json", [
      http(0, 1),
      http(1, 2, { status: "404", expected_response: "false" }),
      http(2, 3, { status: "503", expected_response: "false" }),
      http(3, 60_000, { status: "0", error_code: "1050", expected_response: "false" }),
      http(4, 0, { status: "0", error_code: "1212", expected_response: "false" }),
      http(5, 4, { status: "201" }),
    ]);
    expect(r.cells.map((c) => [c.class, c.count, c.failures])).toEqual([
      ["2xx", 2, 0],
      ["4xx", 1, 1],
      ["5xx", 1, 1],
      ["connection", 1, 1],
      ["timeout", 1, 1],
    ]);
    const s = summarize(r.cells, 1);
    expect(s.failures).toBe(4);
    expect(s.byClass).toEqual({ "2xx": 2, "4xx": 1, "5xx": 1, connection: 1, timeout: 1 });
  });

  it("buckets samples by second x name x class, names falling back to the url, with the opsbench histogram", () => {
    const r = feed("json", [
      http(999, 1.5), // second 0
      http(1000, 2.5), // second 1
      http(1500, 3.5),
      http(1700, 4.5, { name: "other" }),
      point("http_req_duration", 2100, 8, { url: "http://x/y", status: "200" }), // no name tag
      point("http_reqs", 2100, 1, { name: "home", status: "200" }), // not a latency
      point("vus", 0, 3),
      point("vus", 500, 5),
      point("vus_max", 0, 10),
      point("data_sent", 100, 100),
      point("data_sent", 900, 50),
      point("data_received", 1200, 2000),
      point("iterations", 1300, 1),
      point("iterations", 1400, 1),
      point("dropped_iterations", 1800, 2),
    ]);
    const sec = (n: number) => new Date(T0 + n * 1000).getTime();
    expect(r.cells.map((c) => [c.ts.getTime(), c.name, c.count])).toEqual([
      [sec(0), "home", 1],
      [sec(1), "home", 2],
      [sec(1), "other", 1],
      [sec(2), "http://x/y", 1],
    ]);
    const home1 = r.cells[1]!;
    expect(home1).toMatchObject({ class: "2xx", sum: 6, min: 2.5, max: 3.5, failures: 0 });
    expect(home1.buckets).toEqual([
      [bucketIndex(2.5), 1],
      [bucketIndex(3.5), 1],
    ]);
    expect(r.requests).toBe(5);
    expect(r.samples).toBe(15);
    expect(r.firstSampleMs).toBeCloseTo(T0 + 0.123, 2);
    expect(r.lastSampleMs).toBeCloseTo(T0 + 2100.123, 2);
    // Exact times: the load window is first to last sample on k6's clock.
    expect(r.loadWindow!.source).toBe("k6-samples");
    expect(r.loadWindow!.seconds).toBeCloseTo(2.1, 6);
    expect(r.load.map((l) => ({ ...l, ts: l.ts.getTime() }))).toEqual([
      { ts: sec(0), vus: 5, vusMax: 10, sent: 150, received: 0, iterations: 0, dropped: 0 },
      { ts: sec(1), vus: 0, vusMax: 0, sent: 0, received: 2000, iterations: 2, dropped: 2 },
    ]);
  });

  it("reads k6 times with any offset and precision, and CSV timestamps in every k6 time format", () => {
    expect(parseRfc3339("2026-11-21T19:28:01.123456789Z")).toBeCloseTo(T0 + 123.456789, 3);
    expect(parseRfc3339("2026-11-21T20:28:01.5+01:00")).toBe(T0 + 500);
    expect(parseRfc3339("2026-11-21T19:28:01Z")).toBe(T0);
    expect(parseRfc3339("2026-13-21T19:28:01Z")).toBeNull();
    expect(parseRfc3339("1795290353")).toBeNull();
    const s = T0 / 1000;
    expect(parseCsvTimestamp(String(s))).toBe(T0);
    expect(parseCsvTimestamp(String(T0 + 250))).toBe(T0 + 250);
    expect(parseCsvTimestamp(String((T0 + 250) * 1000))).toBe(T0 + 250);
    expect(parseCsvTimestamp(`${T0 + 250}000000`)).toBe(T0 + 250);
    expect(parseCsvTimestamp("2026-11-21T19:28:01.25Z")).toBe(T0 + 250);
    expect(parseCsvTimestamp("soon")).toBeNull();
  });

  it("reads CSV columns by the header's order, not by position, and counts bad rows", () => {
    const s = T0 / 1000;
    // Columns in an order of our own, an extra unknown one, and a quoted url with a comma.
    const header = "status,name,metric_value,timestamp,custom,metric_name,expected_response,error_code,url";
    const r = feed("csv", [
      header, // 1
      `200,home,12.5,${s},x,http_req_duration,true,,http://a/`, // 2
      `404,,3.25,${s + 1},x,http_req_duration,false,1404,"http://a/x,y""z"`, // 3: no name: the url
      `0,home,60000,${s + 1},x,http_req_duration,false,1050,http://a/`, // 4: timeout
      `200,home,1,${s},x,http_reqs,true,,http://a/`, // 5: another metric
      `200,home,12.5,${s}`, // 6: too few columns
      `200,home,abc,${s},x,http_req_duration,true,,http://a/`, // 7: bad value
      `200,home,1,yesterday,x,http_req_duration,true,,http://a/`, // 8: bad timestamp
      `200,home,1,${s},x,http_req_duration,true,,"http://a/`, // 9: unterminated quote
      header, // 10: a repeated header (files joined), no data
      `200,home,7.5,${s + 2},x,http_req_duration,true,,http://a/\r`, // 11: CRLF
      `,,3,${s + 2},x,vus,,,`, // 12: vus 3
    ]);
    expect(r.format).toBe("csv");
    expect(r.requests).toBe(4);
    expect(r.skipped).toBe(4);
    expect(r.skippedExamples.map((e) => e.line)).toEqual([6, 7, 8, 9]);
    expect(r.skippedExamples[0]!.reason).toBe("CSV row has 4 columns, the header has 9");
    expect(r.skippedExamples[1]!.reason).toMatch(/metric_value "abc" is not a number/);
    expect(r.skippedExamples[2]!.reason).toMatch(/timestamp "yesterday" is not a time/);
    expect(r.cells.map((c) => [c.ts.getTime() - T0, c.name, c.class, c.count, c.failures, c.sum])).toEqual([
      [0, "home", "2xx", 1, 0, 12.5],
      [1000, "home", "timeout", 1, 1, 60000],
      [1000, 'http://a/x,y"z', "4xx", 1, 1, 3.25],
      [2000, "home", "2xx", 1, 0, 7.5],
    ]);
    expect(r.load).toEqual([expect.objectContaining({ vus: 3 })]);
    // Whole-second timestamps: each stands for its second, so seconds 0..2 are a 3 s window, not 2.
    expect(r.loadWindow).toEqual({ startMs: T0, endMs: T0 + 3000, seconds: 3, source: "k6-rows" });
  });

  it("parses CSV records as Go's encoding/csv writes them", () => {
    expect(parseCsvRow("a,,c")).toEqual(["a", "", "c"]);
    expect(parseCsvRow('"a,b","say ""hi""",')).toEqual(["a,b", 'say "hi"', ""]);
    expect(parseCsvRow("")).toEqual([""]);
    expect(parseCsvRow('"a"b')).toMatch(/stray character/);
    expect(parseCsvRow('a"b')).toMatch(/stray quote/);
  });

  it("keeps memory to seconds x names: many requests in one second make one cell", () => {
    const agg = k6ImportAggregator("json");
    for (let i = 0; i < 20_000; i++) agg.line(http(i % 1000, 1 + (i % 97)), i + 1);
    const r = agg.finish();
    expect(r.cells).toHaveLength(1);
    expect(r.cells[0]!.count).toBe(20_000);
    expect(r.cells[0]!.buckets.length).toBeLessThan(400);
  });
});
