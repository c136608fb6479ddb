// How the set-up talks: one line per step with its result and time; on a terminal
// a spinner with the elapsed time (and the usual duration) while a long step runs.
// The tools' own output (apt, npm, go, initdb, migrations) goes to a log file,
// unless verbose, and the end of it is shown when a step fails.
// Plain Node, no dependencies: it runs before `npm install`.
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const clock = (ms) => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};
const seconds = (ms) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);

/** A step failed; its message already says what to do, the log has the rest. */
export class StepError extends Error {}

export function createSteps({ prefix = "setup", logFile, verbose = false, cwd, out = process.stdout }) {
  mkdirSync(path.dirname(logFile), { recursive: true });
  appendFileSync(logFile, `\n==== ${new Date().toISOString()} ${process.argv.slice(1).join(" ")}\n`);
  const live = out.isTTY === true && !verbose;
  const logRel = path.relative(process.cwd(), logFile);
  let stepStart = 0;

  const write = (text) => out.write(`${live ? "\r\x1b[K" : ""}${text}\n`);

  /** Runs a command with its output in the log (or on the terminal when verbose); resolves with its stdout. */
  function run(cmd, args, opts = {}) {
    appendFileSync(logFile, `$ ${cmd} ${args.join(" ")}\n`);
    return new Promise((resolve, reject) => {
      const child = spawn(cmd, args, { cwd, ...opts, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      const sink = (stream, target) => (chunk) => {
        if (stream === "out") stdout += chunk;
        appendFileSync(logFile, chunk);
        if (verbose) target.write(chunk);
      };
      child.stdout.on("data", sink("out", process.stdout));
      child.stderr.on("data", sink("err", process.stderr));
      child.once("error", (err) => reject(new StepError(`cannot run ${cmd}: ${err.message}`)));
      child.once("close", (code) =>
        code === 0 ? resolve(stdout) : reject(new StepError(`${cmd} ${args.join(" ")} failed (exit ${code})`)),
      );
    });
  }

  /** Notes a line in the log only (what a step decided, for whoever reads the log). */
  const note = (text) => appendFileSync(logFile, `${text}\n`);

  /**
   * Runs one step: `work()` resolves with a short result ("up to date", "built").
   * `usually` (e.g. "about 1.5 min") is shown beside the spinner while it runs.
   */
  async function step(title, work, { usually } = {}) {
    stepStart = Date.now();
    appendFileSync(logFile, `---- ${title}\n`);
    let i = 0;
    const tick = () =>
      out.write(
        `\r\x1b[K${prefix}: ${title} ${SPINNER[i++ % SPINNER.length]} ${clock(Date.now() - stepStart)}${usually ? ` (usually ${usually})` : ""}`,
      );
    const timer = live ? setInterval(tick, 250) : null;
    if (live) tick();
    try {
      const result = await work();
      write(`${prefix}: ${title}: ${result} (${seconds(Date.now() - stepStart)})`);
      return result;
    } catch (err) {
      write(`${prefix}: ${title}: FAILED after ${seconds(Date.now() - stepStart)}`);
      if (!verbose) {
        const lines = readFileSync(logFile, "utf8").trimEnd().split("\n");
        const from = lines.lastIndexOf(`---- ${title}`);
        const tail = lines.slice(from + 1).slice(-40);
        if (tail.length) out.write(`${tail.map((l) => `  | ${l}`).join("\n")}\n`);
      }
      throw new StepError(`${err.message} (full log: ${logRel})`);
    } finally {
      if (timer) clearInterval(timer);
    }
  }

  return { step, run, note, logRel };
}
