// At worker start: k6's load networks (a namespace and an nftables table of one
// name) that a killed worker left behind are removed once their run is final. Only
// networks a run of this database recorded are touched: another installation (or a
// test stack) on the same machine may be using the others right now.
import { isFinalRunStatus } from "@opsbench/core";
import { runOfLoadNetwork, type Db } from "@opsbench/db";
import { listLoadNetworks, removeLoadNetwork } from "@opsbench/providers";
import type { Logger } from "./logger";

/** Returns the names removed. */
export async function sweepLoadNetworks(db: Db, log: Logger): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await listLoadNetworks()) {
    const run = await runOfLoadNetwork(db, name);
    if (!run || !isFinalRunStatus(run.status)) continue;
    const left = await removeLoadNetwork({ ns: name, table: name });
    if (left.length) log.warn({ runId: run.id, left }, "could not remove a leftover load network");
    else removed.push(name);
  }
  if (removed.length) log.info({ removed }, "leftover load networks removed");
  return removed;
}
