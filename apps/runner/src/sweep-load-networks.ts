// k6's load networks (a namespace and an nftables table of one name) outlive a runner that was
// killed mid-run (k6 itself dies with it: bubblewrap's --die-with-parent). The runner notes each
// network it makes in its own state folder and, when it starts, removes the ones noted there:
// none of its k6 can be running then. Networks of other runners on the machine are not touched.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { removeLoadNetwork } from "@opsbench/host";
import type { Logger } from "./logger";

const NAME = /^obk6[0-9a-f]{6}$/;

export function loadNetworkNotes(stateDir: string) {
  const dir = path.join(stateDir, "load-networks");
  return {
    add(name: string) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, name), "");
    },
    remove(name: string) {
      rmSync(path.join(dir, name), { force: true });
    },
    /** Removes every noted network; returns the names removed. */
    async sweep(log: Logger): Promise<string[]> {
      mkdirSync(dir, { recursive: true });
      const removed: string[] = [];
      for (const name of readdirSync(dir).filter((n) => NAME.test(n))) {
        const left = await removeLoadNetwork({ ns: name, table: name });
        if (left.length) {
          log.warn({ name, left }, "could not remove a leftover load network");
          continue;
        }
        rmSync(path.join(dir, name), { force: true });
        removed.push(name);
      }
      if (removed.length) log.info({ removed }, "leftover load networks removed");
      return removed;
    },
  };
}
