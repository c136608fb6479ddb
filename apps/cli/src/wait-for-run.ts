import { loadRunView, type Db } from "@opsbench/db";
import { pollRun, type RunReport } from "./run-report";

export { exitCodeFor, formatSummary, pollRun, type RunReport, runSummaryJson } from "./run-report";

/** Polls the run (in the database) until it is final, printing status and step changes as they happen. */
export function waitForRun(db: Db, runId: string, log: (m: string) => void): Promise<RunReport> {
  return pollRun(() => loadRunView(db, runId), log);
}
