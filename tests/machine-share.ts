// Services files run in parallel, but a few compare timings or
// need the CPU to themselves (a scale-out under CPU load, isolated vs co-located
// latency). Every such file holds this lock alone; every other file holds it
// shared. Postgres advisory locks queue a shared request behind a waiting
// exclusive one, so an alone file waits only for the files already running.
import { createHash } from "node:crypto";
import pg from "pg";
import { stackName, testStack } from "./stack-env";

// One key per checkout (its stack name), so other checkouts' runs never wait on ours.
const lockKey = createHash("sha256").update(`opsbench tests ${stackName}`).digest().readInt32BE(0);

/** Takes the machine, alone or shared with the other files; resolves with the release. */
export async function shareMachine(mode: "alone" | "shared"): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: testStack.databaseUrl });
  await client.connect();
  await client.query(mode === "alone" ? "SELECT pg_advisory_lock($1)" : "SELECT pg_advisory_lock_shared($1)", [lockKey]);
  // Ending the session releases its advisory locks.
  return () => client.end();
}
