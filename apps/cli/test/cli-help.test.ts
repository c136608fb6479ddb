// `opsbench COMMAND --help` and `opsbench --version` (issue 37: `run --help` exited 2), and NO_COLOR. The repository's
// CLI is run for real, with no server and no database: help and version need neither. The packed CLI's are checked
// in packed-cli.test.ts. An integration file (not unit): it starts a dozen CLI processes, the suite's bundle of the
// same sources (opsbenchCommand; a start through tsx took 2.3 s of CPU), and bin/opsbench.js itself once.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXTERNAL_RUN_OPTIONS } from "../src/external-run";
import { GATE_OPTIONS } from "../src/gate-command";
import { PROVENANCE_OPTIONS } from "../src/provenance-flags";
import { escapesAllowed, liveLine } from "../src/terminal-progress";
import { opsbenchCommand } from "../../../tests/helpers";

const repo = path.resolve(import.meta.dirname, "../../..");
const version = JSON.parse(readFileSync(path.join(repo, "apps/cli/package.json"), "utf8")).version as string;

const bin = path.join(repo, "apps/cli/bin/opsbench.js");

function opsbench(
  args: string[],
  env: Record<string, string> = {},
  program = opsbenchCommand(),
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // No OPSBENCH_URL and a database nowhere: nothing but the arguments is read.
    const child = spawn(process.execPath, [program, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const flags = (options: Record<string, unknown>) => Object.keys(options).map((k) => `--${k}`);

/** Each command, and the flags its parser takes (the help must name every one). */
const COMMANDS: Array<{ argv: string[]; flags: string[] }> = [
  {
    argv: ["run"],
    flags: [
      "--target",
      "--workload",
      "--script",
      "--entry",
      "--env",
      "--secret",
      "--json",
      ...flags(GATE_OPTIONS),
      ...flags(PROVENANCE_OPTIONS),
    ],
  },
  { argv: ["run", "--external"], flags: [...flags(EXTERNAL_RUN_OPTIONS), "--no-wait", "--json", "--junit", "--summary"] },
  { argv: ["compare"], flags: [...flags(GATE_OPTIONS), "--json"] },
  { argv: ["baseline", "set"], flags: ["--target", "--workload", "--json"] },
  { argv: ["runs", "show"], flags: ["--from", "--to", "--json"] },
  { argv: ["import", "k6"], flags: ["--name", "--json"] },
  { argv: ["ingest"], flags: ["--run", "--url", "--token-file", "--segment"] },
  { argv: ["study"], flags: ["--json", "--time-scale", "--repetitions"] },
  { argv: ["workload"], flags: ["--k6", "--json", "--time-scale", "--path", "--set", "--save"] },
  { argv: ["cost"], flags: ["--model", "--usage", "--json", "--catalogs"] },
  { argv: ["demo"], flags: ["--no-serve", "--time-scale"] },
  { argv: ["worker"], flags: ["--role"] },
  { argv: ["admin"], flags: ["--url", "--email", "--name"] },
];

describe("opsbench --help and --version", () => {
  it("every command answers --help with its usage (exit 0), naming each flag it takes", async () => {
    const results = await Promise.all(COMMANDS.map((c) => opsbench([...c.argv, "--help"])));
    for (const [i, c] of COMMANDS.entries()) {
      const r = results[i]!;
      const name = c.argv.join(" ");
      expect(r.code, `${name} --help: ${r.stderr}`).toBe(0);
      expect(r.stdout.startsWith("usage:\n"), name).toBe(true);
      expect(r.stdout, name).toContain(`opsbench ${c.argv[0]}`);
      for (const flag of c.flags) expect(r.stdout, `${name} --help names ${flag}`).toContain(flag);
      // The command's own usage, not the whole list.
      if (c.argv[0] !== "worker") expect(r.stdout, name).not.toContain("opsbench worker");
    }
  });

  it("-h anywhere among the arguments is help too; an unknown command still exits 2", async () => {
    const h = await opsbench(["compare", "RUN_ID", "-h"]);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain("opsbench compare RUN_ID --baseline");
    const unknown = await opsbench(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });

  it("--version prints the package's version, from bin/opsbench.js as from the bundle", async () => {
    for (const program of [bin, opsbenchCommand()]) {
      const r = await opsbench(["--version"], {}, program);
      expect(r.code, program).toBe(0);
      expect(r.stdout.trim()).toBe(version);
    }
  });

  it("writes no escape sequence with NO_COLOR set or when not on a terminal", async () => {
    // On a terminal, without NO_COLOR: the live line's cursor moves are allowed; NO_COLOR (any non-empty value),
    // TERM=dumb or no terminal turn them off.
    expect(escapesAllowed({ isTTY: true }, {})).toBe(true);
    expect(escapesAllowed({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(escapesAllowed({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
    expect(escapesAllowed({ isTTY: true }, { TERM: "dumb" })).toBe(false);
    expect(escapesAllowed({ isTTY: false }, {})).toBe(false);
    // A terminal stream with NO_COLOR set: the live line writes only its permanent lines.
    const written: string[] = [];
    const tty = { isTTY: true, columns: 80, write: (s: string) => written.push(s) };
    const before = process.env.NO_COLOR;
    process.env.NO_COLOR = "1";
    try {
      const line = liveLine(tty);
      line.update("building...");
      line.say("built");
    } finally {
      if (before === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = before;
    }
    expect(written).toEqual(["built\n"]);
    const help = await opsbench(["run", "--help"], { NO_COLOR: "1" });
    expect(help.stdout + help.stderr).not.toContain("\u001b");
  });
});
