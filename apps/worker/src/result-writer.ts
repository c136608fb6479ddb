// Streams the k6 output's per-second aggregates (and the provider's infra points) into
// Postgres: buffered, and written in order about once a second (or every 500 lines),
// each batch in one transaction. While the database is away the writer keeps the
// lines in memory and retries with backoff, so a blip loses no second of the series;
// the buffer is bounded in bytes (maxBufferedBytes), and lines past the bound are dropped,
// counted and flagged on the run (docs/faults.md).
import {
  type HttpSeriesCap,
  type K6EndLine,
  type K6HttpLine,
  type K6LoadLine,
  type K6MetricLine,
  MAX_SERIES_NAME_LENGTH,
  OTHER_METRIC_SERIES,
  OTHER_SERIES,
  seriesNameWithin,
  type ValidityFlag,
} from "@opsbench/core";
import { retryWhileDown, type InfraRow, type ResultBatch, type RunStore } from "@opsbench/db";
import { ingestRows } from "@opsbench/jobs";
import type { Logger } from "./logger";

export interface ResultWriterOptions {
  /** Bytes of lines held while the database is away (lineBytes); past it, new lines are dropped. */
  maxBufferedBytes?: number;
  /** How long one batch waits for the database, in all, before the writer gives up and the run fails (ms). */
  outageWaitMs?: number;
  /** The workspace's http-series limit: names beyond it are stored as one "other" series. */
  seriesCap?: HttpSeriesCap;
}

/** 64 MiB: about 40 minutes of a load with 20 request names. Counted in bytes, not lines: a line's size is the script's. */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 << 20;

/** What a buffered line takes in memory, about: an object's fixed cost and its strings, two bytes a character. */
export function lineBytes(line: { t?: string; name?: string; class?: string; unit?: string; b?: string }): number {
  return 200 + 2 * ((line.name?.length ?? 0) + (line.class?.length ?? 0) + (line.unit?.length ?? 0) + (line.b?.length ?? 0));
}
export const DEFAULT_OUTAGE_WAIT_MS = 10 * 60_000;

/** The flag a run gets when the writer had to drop lines. */
export function resultsDroppedFlag(lines: number, seconds: number, boundBytes: number): ValidityFlag {
  return {
    code: "results-dropped",
    message: `${lines} per-second line(s) over ${seconds} second(s) were dropped while the database was unreachable (the worker buffers at most ${Math.round(boundBytes / 2 ** 20)} MiB of lines): the series has gaps and the totals are low`,
  };
}

/** Buffers output lines and writes them in order, about once a second, retrying while the database is away. */
export class ResultWriter {
  private http: K6HttpLine[] = [];
  private load: K6LoadLine[] = [];
  private metrics: K6MetricLine[] = [];
  private infra: InfraRow[] = [];
  private draining: Promise<void> | null = null;
  private timer: NodeJS.Timeout;
  private error: unknown = null;
  private readonly maxBuffered: number;
  private readonly outageWaitMs: number;
  /** Lines taken for the batch being written (still in memory until it is stored). */
  private inFlight = 0;
  /** lineBytes of the lines buffered, and of those in the batch being written. */
  private bytes = { pending: 0, inFlight: 0 };
  private dropped = { lines: 0, seconds: new Set<number>() };
  /** Lines whose name was over MAX_SERIES_NAME_LENGTH (the engine folds them itself; a stock k6's fold too). */
  private longNames = 0;
  rows = 0;
  /** Times a batch had to wait for the database. */
  outages = 0;
  /** k6's clock from the output's "end" line (epoch ms), when the build writes it: the test's start and its last sample. */
  k6Clock: { startMs: number; lastMs: number } | null = null;

  constructor(
    private store: RunStore,
    private onFlushed: () => unknown,
    private log: Logger,
    private options: ResultWriterOptions = {},
  ) {
    this.maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.outageWaitMs = options.outageWaitMs ?? DEFAULT_OUTAGE_WAIT_MS;
    this.timer = setInterval(() => this.flush(), 1000);
  }

  /** Lines held in memory, written or not yet. */
  get buffered(): number {
    return this.inFlight + this.http.length + this.load.length + this.metrics.length + this.infra.length;
  }

  add(line: { t: string }) {
    if (line.t === "end") {
      const { startMs, firstMs, lastMs } = line as K6EndLine;
      const start = startMs ?? firstMs;
      if (start !== undefined && lastMs !== undefined) this.k6Clock = { startMs: start, lastMs };
      return;
    }
    if (line.t !== "http" && line.t !== "load" && line.t !== "metric") return;
    const kept =
      line.t === "http"
        ? this.withinNameLength(line as K6HttpLine, OTHER_SERIES)
        : line.t === "metric"
          ? this.withinNameLength(line as K6MetricLine, OTHER_METRIC_SERIES)
          : (line as K6LoadLine);
    if (!this.room(lineBytes(kept))) {
      this.drop(kept.s);
      return;
    }
    if (kept.t === "http") this.http.push(kept);
    else if (kept.t === "load") this.load.push(kept);
    else this.metrics.push(kept);
    if (this.http.length >= 500 || this.metrics.length >= 500) this.flush();
  }

  private withinNameLength<L extends { name: string }>(line: L, other: string): L {
    const name = seriesNameWithin(line.name, other);
    if (name === line.name) return line;
    this.longNames++;
    return { ...line, name };
  }

  /** One of the provider's observations (replicas, CPU), written with the next batch. */
  addInfra(point: InfraRow) {
    if (!this.room(lineBytes({}))) this.drop(Math.floor(point.ts.getTime() / 1000));
    else this.infra.push(point);
  }

  /** Whether a line of `size` bytes fits in the buffer; counted in when it does. */
  private room(size: number): boolean {
    if (this.bytes.pending + this.bytes.inFlight + size > this.maxBuffered) return false;
    this.bytes.pending += size;
    return true;
  }

  private drop(second: number) {
    if (this.dropped.lines === 0)
      this.log.error({ boundBytes: this.maxBuffered }, "result buffer full: dropping lines until the database answers");
    this.dropped.lines++;
    this.dropped.seconds.add(second);
  }

  /** Starts writing what is buffered, unless a write is already under way (it goes on until the buffer is empty). */
  private flush() {
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
  }

  private async drain() {
    while (this.http.length || this.load.length || this.metrics.length || this.infra.length) {
      const http = this.http.splice(0);
      const batch: ResultBatch = {
        http: this.options.seriesCap ? this.options.seriesCap.apply(http) : http,
        load: this.load.splice(0),
        metrics: this.metrics.splice(0),
        infra: this.infra.splice(0),
      };
      this.inFlight = batch.http.length + batch.load.length + batch.metrics.length + batch.infra.length;
      this.bytes = { pending: 0, inFlight: this.bytes.pending };
      try {
        await retryWhileDown(() => this.store.appendBatch(batch, this.outageWaitMs), {
          maxWaitMs: this.outageWaitMs,
          onWait: (err) => {
            this.outages++;
            this.log.warn({ err: String(err), buffered: this.buffered }, "database unreachable: keeping results in memory and retrying");
          },
        });
        this.rows += batch.http.length;
        ingestRows.inc({ source: "worker" }, batch.http.length);
        this.onFlushed();
      } catch (err) {
        this.error ??= err;
        this.log.error({ err }, "writing results failed");
      } finally {
        this.inFlight = 0;
        this.bytes.inFlight = 0;
      }
    }
  }

  /** Writes what is left, flags the run when lines were dropped, and throws when results could not be stored. */
  async close() {
    clearInterval(this.timer);
    this.flush();
    while (this.draining) await this.draining;
    if (this.longNames > 0) {
      await this.store.event(
        "warn",
        `${this.longNames} line(s) named a request, check or metric with more than ${MAX_SERIES_NAME_LENGTH} characters: stored under "${OTHER_SERIES}" (requests) and "${OTHER_METRIC_SERIES}"`,
      );
      this.longNames = 0;
    }
    if (this.dropped.lines > 0) {
      const flag = resultsDroppedFlag(this.dropped.lines, this.dropped.seconds.size, this.maxBuffered);
      this.dropped = { lines: 0, seconds: new Set() };
      await this.store.flag(flag);
      await this.store.event("warn", flag.message);
    }
    if (this.error) throw new Error(`results could not be stored: ${(this.error as Error).message ?? String(this.error)}`);
  }
}
