// `opsbench ingest --run ID`: a stock k6 feeding an external run (`opsbench run --external`). Reads k6's JSON output on
// stdin (`k6 run --out json=- script.js | opsbench ingest --run ID`), folds it into the per-second lines opsbench-engine
// sends (core k6-json-stream.ts: a second once it has settled) and posts them once a second to the run's ingest
// endpoint (POST /api/v1/runs/<id>/ingest, the run's own token, the execution segment in X-Opsbench-Segment), then
// the end line. No database module and no API token: the packed CLI holds it. Exit codes: 0 sent, 1 the server
// refused, 69 it could not be reached for a minute, 2 bad input (arguments, or stdin that is not k6's JSON output; nothing is sent
// before stdin has shown a k6 JSON line).
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { parseArgs } from "node:util";
import { type K6OutputLine, k6JsonStream } from "@opsbench/core";
import { ServerUnreachable } from "./exit-codes";
import { loadIngestEnv } from "./remote-env";
import { parsing, UsageError } from "./usage-error";

export const INGEST_USAGE = `  opsbench ingest --run ID [--url BASE] [--token-file FILE] [--segment A:B]
                                                              k6's JSON output on stdin (k6 run --out json=- script.js | opsbench
                                                              ingest --run ID), folded per second and sent to the external run;
                                                              the token from OPSBENCH_INGEST_TOKEN or --token-file, BASE from
                                                              OPSBENCH_URL; --segment: the k6's --execution-segment (default 0:1)`;

/** The ingest endpoint takes at most 2 MiB a request; batches stay well under. */
const BATCH_BYTES = 1 << 20;
/** How often settled seconds are sent. */
const SEND_EVERY_MS = 1000;
/** How long a failing server is tried again (each batch with the next) before the command gives up. */
const GIVE_UP_AFTER_MS = 60_000;
/** One send's bound: the server takes a batch in well under a second. */
const SEND_TIMEOUT_MS = 30_000;

/** The server said no for good: a refused token, a run that takes no more, lines it will not take. */
class Refused extends Error {}

export interface IngestIo {
  say: (m: string) => void;
  stdin?: Readable;
  now?: () => number;
}

export async function ingestCommand(args: string[], io: IngestIo): Promise<number> {
  const { values } = parsing(() =>
    parseArgs({
      args,
      strict: true,
      options: {
        run: { type: "string" },
        url: { type: "string" },
        "token-file": { type: "string" },
        segment: { type: "string", default: "0:1" },
      },
    }),
  );
  const env = loadIngestEnv();
  if (!values.run) throw new UsageError("ingest needs --run ID (the external run `opsbench run --external` made)");
  if (!/^[0-9a-f-]{36}$/i.test(values.run)) throw new UsageError(`--run must be a run id (a UUID), not "${values.run}"`);
  const base = values.url ?? env.OPSBENCH_URL;
  if (!base) throw new UsageError("ingest needs the server's address: --url BASE or OPSBENCH_URL");
  if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol))
    throw new UsageError(`--url must be the opsbench server's address (e.g. https://opsbench.example.com), not "${base}"`);
  if (!/^\d+(\/\d+)?:\d+(\/\d+)?$/.test(values.segment))
    throw new UsageError(`--segment must be k6's --execution-segment (e.g. 0:1/2 or 1/2:1), not "${values.segment}"`);
  let token = env.OPSBENCH_INGEST_TOKEN;
  if (values["token-file"]) {
    try {
      token = readFileSync(values["token-file"], "utf8").trim();
    } catch (err) {
      throw new UsageError(`cannot read --token-file ${values["token-file"]}: ${(err as Error).message}`);
    }
  }
  if (!token) throw new UsageError("ingest needs the run's ingest token: OPSBENCH_INGEST_TOKEN or --token-file FILE");

  const url = new URL(`/api/v1/runs/${values.run}/ingest`, base).toString();
  const sender = batchSender({ url, token, segment: values.segment, now: io.now ?? Date.now });
  const folder = k6JsonStream({ thresholds: true });
  const now = io.now ?? Date.now;
  let lineNo = 0;
  let taken = 0;
  let passedOver = 0;
  let firstPassedOver: string | null = null;
  let failure: Error | null = null;

  const input = createInterface({ input: io.stdin ?? process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  const timer = setInterval(() => {
    if (taken === 0 || failure) return;
    sender.queue(folder.flush(now()));
    sender.send().catch((err: Error) => {
      failure = err;
      input.close();
    });
  }, SEND_EVERY_MS);
  try {
    for await (const text of input) {
      lineNo++;
      if (failure) break;
      const trimmed = text.trim();
      if (trimmed === "") continue;
      // Not a JSON object at all (k6's banner or summary on the same stdout): passed over, and said at the end.
      if (!trimmed.startsWith("{")) {
        passedOver++;
        firstPassedOver ??= `line ${lineNo}: ${JSON.stringify(trimmed.slice(0, 60))}`;
        continue;
      }
      const problem = folder.line(text);
      if (problem)
        throw new UsageError(
          `stdin line ${lineNo} is not k6's JSON output: ${problem}${taken ? ` (${taken} lines were taken before it; the run has no end from this k6)` : ""}`,
        );
      taken++;
    }
  } finally {
    clearInterval(timer);
    input.close();
  }
  if (failure) throw failure;
  if (taken === 0)
    throw new UsageError(
      `stdin held no k6 JSON output (${lineNo} line${lineNo === 1 ? "" : "s"}${firstPassedOver ? `, first: ${firstPassedOver}` : ""}): pipe k6 run --out json=- (or --out json=/dev/stdout) into it`,
    );
  sender.queue(folder.end());
  const answer = await sender.drain();
  if (passedOver) io.say(`passed over ${passedOver} line(s) that are not JSON (first: ${firstPassedOver})`);
  io.say(
    `sent ${folder.requests} request(s) of ${taken} k6 JSON line(s) to run ${values.run} (segment ${values.segment})${answer?.final ? "; the run is final" : "; the run waits for its other generators"}`,
  );
  return 0;
}

/** Sends the folded lines in order, in batches of at most BATCH_BYTES; a failed batch is sent again with the next. */
function batchSender(opts: { url: string; token: string; segment: string; now: () => number }) {
  const pending: string[] = [];
  let sending: Promise<{ final: boolean } | null> | null = null;
  let failingSince: number | null = null;
  let last: { final: boolean } | null = null;

  const post = async (lines: string[]): Promise<{ final: boolean }> => {
    let res: Response;
    try {
      res = await fetch(opts.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${opts.token}`,
          "content-type": "application/x-ndjson",
          "x-opsbench-segment": opts.segment,
        },
        body: `${lines.join("\n")}\n`,
        // A send without an answer is lost, not waited for: it is sent again with the next batch.
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why =
        (err as Error).name === "TimeoutError"
          ? `no answer within ${SEND_TIMEOUT_MS / 1000} s`
          : (cause?.code ?? cause?.message ?? (err as Error).message);
      throw new ServerUnreachable(`cannot reach ${new URL(opts.url).origin}: ${why}`);
    }
    const body = (await res.json().catch(() => null)) as { error?: { message?: string }; final?: boolean } | null;
    const message = body?.error?.message ?? `HTTP ${res.status}`;
    if (res.status === 401) throw new Refused(`${new URL(opts.url).origin} refused the ingest token (401): ${message}`);
    if (res.status === 404) throw new Refused(`${new URL(opts.url).origin} knows no such run (404): ${message}`);
    if (res.status === 409) throw new Refused(`the run takes no more results (409): ${message}`);
    if (res.status === 413 || res.status === 422)
      throw new Refused(`${new URL(opts.url).origin} refused the lines (${res.status}): ${message}`);
    if (!res.ok) throw new Error(`${new URL(opts.url).origin} answered ${res.status}: ${message}`);
    return { final: body?.final === true };
  };

  const sendPending = async (): Promise<{ final: boolean } | null> => {
    while (pending.length) {
      let size = 0;
      let n = 0;
      while (n < pending.length && (n === 0 || size + pending[n]!.length + 1 <= BATCH_BYTES)) size += pending[n++]!.length + 1;
      try {
        last = await post(pending.slice(0, n));
        pending.splice(0, n);
        failingSince = null;
      } catch (err) {
        if (err instanceof Refused) throw err;
        failingSince ??= opts.now();
        if (opts.now() - failingSince > GIVE_UP_AFTER_MS) {
          const message = `${(err as Error).message}; gave up after ${GIVE_UP_AFTER_MS / 1000} s`;
          throw err instanceof ServerUnreachable ? new ServerUnreachable(message) : new Error(message);
        }
        return null; // kept, and sent again with the next batch
      }
    }
    return last;
  };

  return {
    queue(lines: K6OutputLine[]) {
      for (const l of lines) pending.push(JSON.stringify(l));
    },
    /** Sends what is queued unless a send is under way. */
    async send(): Promise<void> {
      if (sending) return;
      sending = sendPending();
      try {
        await sending;
      } finally {
        sending = null;
      }
    },
    /** Sends everything left, trying a failing server again once a second; the last answer. */
    async drain(): Promise<{ final: boolean } | null> {
      while (sending) await sending.catch(() => null);
      for (;;) {
        await sendPending();
        if (!pending.length) return last;
        await new Promise((r) => setTimeout(r, SEND_EVERY_MS));
      }
    },
  };
}
