// Streams the k6 output's per-second aggregates into Postgres: buffered, and
// written in order about once a second (or every 500 lines).
import type { HttpSeriesCap, K6EndLine, K6HttpLine, K6LoadLine, K6MetricLine } from "@opsbench/core";
import type { RunStore } from "@opsbench/db";
import type { Logger } from "./logger";

/** Buffers output lines and writes them in order, about once a second. */
export class ResultWriter {
  private http: K6HttpLine[] = [];
  private load: K6LoadLine[] = [];
  private metrics: K6MetricLine[] = [];
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout;
  private error: unknown = null;
  rows = 0;
  /** k6's clock from the output's "end" line (epoch ms), when the build writes it: the test's start and its last sample. */
  k6Clock: { startMs: number; lastMs: number } | null = null;

  constructor(
    private store: RunStore,
    private onFlushed: () => unknown,
    private log: Logger,
    /** The workspace's http-series limit: names beyond it are stored as one "other" series. */
    private seriesCap: HttpSeriesCap | null = null,
  ) {
    this.timer = setInterval(() => this.flush(), 1000);
  }

  add(line: { t: string }) {
    if (line.t === "http") this.http.push(line as K6HttpLine);
    else if (line.t === "load") this.load.push(line as K6LoadLine);
    else if (line.t === "metric") this.metrics.push(line as K6MetricLine);
    else if (line.t === "end") {
      const { startMs, firstMs, lastMs } = line as K6EndLine;
      const start = startMs ?? firstMs;
      if (start !== undefined && lastMs !== undefined) this.k6Clock = { startMs: start, lastMs };
    }
    if (this.http.length >= 500 || this.metrics.length >= 500) this.flush();
  }

  private flush() {
    const lines = this.http.splice(0);
    const http = this.seriesCap ? this.seriesCap.apply(lines) : lines;
    const load = this.load.splice(0);
    const metrics = this.metrics.splice(0);
    if (!http.length && !load.length && !metrics.length) return;
    this.chain = this.chain.then(async () => {
      try {
        await this.store.appendResults(http);
        await this.store.appendLoad(load);
        await this.store.appendMetrics(metrics);
        this.rows += http.length;
        this.onFlushed();
      } catch (err) {
        this.error = err;
        this.log.error({ err }, "writing results failed");
      }
    });
  }

  async close() {
    clearInterval(this.timer);
    this.flush();
    await this.chain;
    if (this.error) throw new Error(`results could not be stored: ${(this.error as Error).message ?? String(this.error)}`);
  }
}
