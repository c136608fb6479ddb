// Processes are owned, not guessed: teardown signals a recorded pid only while it is
// still the process that was started (same start time in /proc/<pid>/stat). A pid
// reused by an unrelated process survives a teardown of the state that recorded it.
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { ownsGroup, processStartTicks, spawnGroup, stopGroup } from "@opsbench/host";
import { localFunction, localService } from "../src";
import { alive, testContext, until } from "./provider-context";

const unrelated: ChildProcess[] = [];
afterEach(() => {
  for (const c of unrelated.splice(0)) c.kill("SIGKILL");
});

/** A process opsbench did not start: its own group, like any other program on the machine. */
function startUnrelated(): { pid: number; startTicks: number } {
  const child = spawn("sleep", ["120"], { detached: true, stdio: "ignore" });
  unrelated.push(child);
  const startTicks = processStartTicks(child.pid!);
  expect(startTicks).not.toBeNull();
  return { pid: child.pid!, startTicks: startTicks! };
}

describe("process ownership", () => {
  it("spawnGroup records the leader's start time, and stopGroup with it stops the group", async () => {
    const proc = spawnGroup("sleep", ["120"], { cwd: "/", env: {} });
    expect(proc.startTicks).toBe(processStartTicks(proc.pid));
    expect(ownsGroup(proc.pid, proc.startTicks)).toBe(true);
    await stopGroup(proc.pid, 1000, proc.startTicks);
    await until("the group to be gone", () => !alive(proc.pid), 5000);
  });

  it("a local-service teardown leaves alone an unrelated process that reuses a recorded pid", async () => {
    const other = startUnrelated();
    // The recorded start time is not the live process's: its pid was reused since the record was made.
    const recorded = other.startTicks - 7;
    expect(ownsGroup(other.pid, recorded)).toBe(false);
    const { ctx } = testContext();
    await localService.teardown(
      {
        state: {
          id: "reuse1",
          lb: { pid: other.pid, startTicks: recorded, port: 1, adminPort: 1 },
          replicas: [{ id: 0, pid: other.pid, pids: [other.pid], starts: [recorded], endpoints: [], cgroups: [], namespaces: [] }],
        },
      },
      ctx,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(other.pid)).toBe(true);
    expect(processStartTicks(other.pid)).toBe(other.startTicks);
  });

  it("a local-function teardown leaves alone a proxy pid now used by an unrelated process", async () => {
    const other = startUnrelated();
    const { ctx } = testContext();
    await localFunction.teardown(
      { state: { id: "reuse2", cgroups: [], proxy: { pid: other.pid, startTicks: other.startTicks + 3, port: 1, adminPort: 1 } } },
      ctx,
    );
    expect(alive(other.pid)).toBe(true);
  });

  it("the same state with the process's real start time stops it (the check is what spared it)", async () => {
    const other = startUnrelated();
    const { ctx } = testContext();
    await localService.teardown(
      {
        state: {
          id: "reuse3",
          replicas: [{ id: 0, pids: [other.pid], starts: [other.startTicks], endpoints: [], cgroups: [], namespaces: [] }],
        },
      },
      ctx,
    );
    await until("the recorded process to be stopped", () => !alive(other.pid), 5000);
  });
});
