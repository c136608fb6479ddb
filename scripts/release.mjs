#!/usr/bin/env node
// A release's work, one subcommand each, so .github/workflows/release.yml is thin calls of this file and a test
// (apps/cli/test/packed-cli.test.ts) runs the very same commands. docs/releasing.md says how a release is cut.
//   node scripts/release.mjs version [--tag vX.Y.Z]      the version (apps/cli/package.json); --tag: must be v<version>
//   node scripts/release.mjs prepare X.Y.Z               sets the CLI's version and writes the Action's dist/ (commit it)
//   node scripts/release.mjs action-dist [--action-dir DIR] [--check]
//                                                        packs the CLI into DIR/dist/opsbench-cli.tgz and its sha512
//                                                        (.sha512, an SRI string); --check: the committed one must be
//                                                        byte for byte what the source packs to (the release's guard)
//   node scripts/release.mjs engine [--platforms os/arch,...] [--out DIR]
//                                                        opsbench-engine, static (CGO_ENABLED=0), per platform, and SHA256SUMS
//   node scripts/release.mjs publish [--tarball FILE] [--dry-run]
//                                                        npm publish of the packed CLI (--provenance on GitHub Actions)
//   node scripts/release.mjs image-meta --target web|app|cli [--registry ghcr.io/OWNER]
//                                                        the image's name and tags, as GITHUB_OUTPUT lines
//   node scripts/release.mjs images --local              builds the three images on a local Docker engine (the stand-in
//                                                        base images of scripts/check-compose.mjs), prints sizes and ids
//   node scripts/release.mjs summary [--dir DIR] [--image TARGET=DIGEST]...
//                                                        markdown of the artefacts' sums and the images' digests
// Every subcommand prints what it made on stdout, one path or line each; progress goes to stderr.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const root = path.resolve(import.meta.dirname, "..");
const cliPackageJson = path.join(root, "apps/cli/package.json");
const defaultActionDir = path.join(root, ".github/actions/opsbench");
/** The file names the Action reads (.github/actions/opsbench/action.yml): fixed, so the Action need not know the version. */
const ACTION_TARBALL = "opsbench-cli.tgz";
/** At least these (the brief of issue 37); a team's runners and laptops. */
const ENGINE_PLATFORMS = ["linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"];
/** The Dockerfile's targets a release publishes, and the image each becomes. */
const IMAGES = { web: "opsbench-web", app: "opsbench", cli: "opsbench-cli" };

const say = (m) => process.stderr.write(`release: ${m}\n`);
class ReleaseError extends Error {}
const fail = (m) => {
  throw new ReleaseError(m);
};

export const cliVersion = () => JSON.parse(readFileSync(cliPackageJson, "utf8")).version;

/** npm's integrity form (what `npm view @opsbench/cli dist.integrity` shows): sha512-<base64>. */
export const sri = (file) => `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
const sha256 = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** Packs the CLI (apps/cli/scripts/pack.mjs, the one pack) into `out`; the tarball's path. */
function packCli(out) {
  say("packing the CLI (apps/cli/scripts/pack.mjs)");
  return execFileSync(process.execPath, [path.join(root, "apps/cli/scripts/pack.mjs"), "--out", out], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

function actionDist({ actionDir = defaultActionDir, check = false }) {
  const dist = path.join(actionDir, "dist");
  const stage = path.join(root, ".data/release/pack");
  rmSync(stage, { recursive: true, force: true });
  const packed = packCli(stage);
  const tarball = path.join(dist, ACTION_TARBALL);
  const integrity = sri(packed);
  if (check) {
    if (!existsSync(tarball))
      fail(`${path.relative(root, tarball)} is not committed: run \`node scripts/release.mjs prepare ${cliVersion()}\``);
    const committed = readFileSync(`${tarball}.sha512`, "utf8").trim();
    if (sri(tarball) !== committed) fail(`${path.relative(root, tarball)} does not match its .sha512 (${committed})`);
    if (committed !== integrity)
      fail(
        `the committed ${path.relative(root, tarball)} (${committed}) is not what this source packs to (${integrity}): ` +
          `run \`node scripts/release.mjs prepare ${cliVersion()}\` and commit dist/ before tagging`,
      );
    say(`${path.relative(root, tarball)} is what the source packs to (${integrity})`);
    return [tarball];
  }
  mkdirSync(dist, { recursive: true });
  copyFileSync(packed, tarball);
  writeFileSync(`${tarball}.sha512`, `${integrity}\n`);
  say(`${tarball} ${integrity}`);
  return [tarball];
}

function prepare(version) {
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version ?? "")) fail(`prepare needs a version X.Y.Z (semver), not "${version ?? ""}"`);
  const text = readFileSync(cliPackageJson, "utf8");
  writeFileSync(cliPackageJson, text.replace(/"version": "[^"]*"/, `"version": "${version}"`));
  const made = actionDist({});
  say(
    `next: git add apps/cli/package.json .github/actions/opsbench/dist && git commit -m "Release v${version}" && git tag v${version} && git push origin HEAD v${version}`,
  );
  return made;
}

function engine({ platforms = ENGINE_PLATFORMS.join(","), out = path.join(root, ".data/release/engine") }) {
  const version = cliVersion();
  mkdirSync(out, { recursive: true });
  const made = [];
  for (const platform of platforms.split(",").map((p) => p.trim())) {
    const [goos, goarch] = platform.split("/");
    if (!goos || !goarch || !ENGINE_PLATFORMS.includes(platform))
      fail(`--platforms: "${platform}" is not one of ${ENGINE_PLATFORMS.join(", ")}`);
    const name = `opsbench-engine-${version}-${goos}-${goarch}${goos === "windows" ? ".exe" : ""}`;
    say(`building ${name}`);
    // The flags of engine/build.mjs and the Dockerfile's go-build stage: the host's platform reuses Go's build cache.
    const r = spawnSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", path.join(out, name), "./cmd/opsbench-engine"], {
      cwd: path.join(root, "engine"),
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, CGO_ENABLED: "0", GOOS: goos, GOARCH: goarch },
    });
    if (r.error) fail(`go: ${r.error.message} (Go is needed to build opsbench-engine)`);
    if (r.status !== 0) fail(`go build for ${platform} exited ${r.status}`);
    made.push(path.join(out, name));
  }
  // sha256sum's format, so `sha256sum -c SHA256SUMS` checks a download; every binary in the folder is listed.
  const binaries = readdirSync(out).filter((f) => f.startsWith("opsbench-engine-"));
  writeFileSync(path.join(out, "SHA256SUMS"), binaries.map((f) => `${sha256(path.join(out, f))}  ${f}\n`).join(""));
  return [...made, path.join(out, "SHA256SUMS")];
}

function publish({ tarball, dryRun }) {
  const file = tarball ?? path.join(defaultActionDir, "dist", ACTION_TARBALL);
  if (!existsSync(file)) fail(`no tarball at ${file}: run action-dist first`);
  // Provenance needs the CI's OIDC token (id-token: write); a rehearsal elsewhere checks everything else.
  const provenance = process.env.GITHUB_ACTIONS === "true" ? ["--provenance"] : [];
  // A pre-release (X.Y.Z-rc.1) goes to the dist-tag `next`, so `npm install @opsbench/cli` keeps the last release.
  const distTag = cliVersion().includes("-") ? ["--tag", "next"] : [];
  const args = ["publish", file, "--access", "public", ...distTag, ...provenance, ...(dryRun ? ["--dry-run"] : [])];
  say(`npm ${args.join(" ")}`);
  const r = spawnSync("npm", args, { stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) fail(`npm publish exited ${r.status}`);
  return [`${dryRun ? "would publish" : "published"} @opsbench/cli@${cliVersion()} ${sri(file)}`];
}

function imageMeta({
  target,
  registry = process.env.GITHUB_REPOSITORY_OWNER ? `ghcr.io/${process.env.GITHUB_REPOSITORY_OWNER}` : "ghcr.io/opsbench",
}) {
  const image = IMAGES[target];
  if (!image) fail(`--target must be one of ${Object.keys(IMAGES).join(", ")}, not "${target ?? ""}"`);
  const version = cliVersion();
  const [major, minor] = version.split(".");
  const name = `${registry.toLowerCase()}/${image}`;
  // A pre-release gets its own tag only; a release also moves X.Y and X.
  const tags = version.includes("-") ? [version] : [version, `${major}.${minor}`, major];
  return [`image=${name}`, `tags=${tags.map((t) => `${name}:${t}`).join(",")}`, `version=${version}`];
}

/** `docker image inspect`'s size and id; null when there is no such image. */
function inspectImage(ref) {
  const r = spawnSync("docker", ["image", "inspect", "-f", "{{.Size}} {{.Id}}", ref], { encoding: "utf8" });
  if (r.status !== 0) return null;
  const [size, id] = r.stdout.trim().split(" ");
  return { size: Number(size), id };
}

function imagesLocal() {
  // The engine and the stand-in base images (no registry needed), as `npm run check:compose` makes them.
  // An engine started here is kept for the builds (--keep-engine) and stopped after them: the host as it was.
  const engineWasUp = spawnSync("docker", ["info"], { stdio: "ignore" }).status === 0;
  say("starting a Docker engine and the stand-in base images (scripts/check-compose.mjs --only-standins --keep-engine)");
  const standins = spawnSync(process.execPath, [path.join(root, "scripts/check-compose.mjs"), "--only-standins", "--keep-engine"], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (standins.status !== 0) fail(`check-compose --only-standins exited ${standins.status}: no engine or stand-in base images to build on`);
  try {
    return buildImages();
  } finally {
    if (!engineWasUp) stopEngine();
  }
}

/** Stops the dockerd that check-compose started (its pid in .data/docker/dockerd.pid). */
function stopEngine() {
  const pidFile = path.join(root, ".data/docker/dockerd.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  try {
    process.kill(pid, "SIGTERM");
    for (let i = 0; i < 60 && spawnSync("docker", ["info"], { stdio: "ignore" }).status === 0; i++) spawnSync("sleep", ["1"]);
    say(`stopped the Docker engine it started (pid ${pid})`);
  } catch (err) {
    say(`could not stop the Docker engine (pid ${pid}): ${err.message}`);
  }
}

function buildImages() {
  const lines = [];
  for (const target of Object.keys(IMAGES)) {
    const meta = Object.fromEntries(imageMeta({ target, registry: "local" }).map((l) => l.split(/=(.*)/s)));
    const tag = `${meta.image}:${meta.version}`;
    const t0 = Date.now();
    say(`docker build --target ${target} -t ${tag} .`);
    const r = spawnSync("docker", ["build", "--target", target, "-t", tag, "."], {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, DOCKER_BUILDKIT: process.env.DOCKER_BUILDKIT ?? "0" },
    });
    if (r.status !== 0) fail(`docker build --target ${target} exited ${r.status}`);
    // The licence must be in every image (Apache-2.0, section 4).
    const licence = spawnSync(
      "docker",
      ["run", "--rm", "--entrypoint", "sh", tag, "-c", "cat /app/LICENSE /usr/share/opsbench/LICENSE 2>/dev/null"],
      {
        encoding: "utf8",
      },
    );
    if (!licence.stdout.includes("Apache License")) fail(`${tag} holds no LICENSE`);
    const seen = inspectImage(tag);
    lines.push(
      `${tag} ${((seen?.size ?? 0) / 1e6).toFixed(0)} MB ${seen?.id ?? "?"} (${Math.round((Date.now() - t0) / 1000)} s, LICENSE in it)`,
    );
  }
  return lines;
}

function summary({ dir, image = [] }) {
  const lines = [`## opsbench ${cliVersion()}`, ""];
  const walk = (d) =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  const files = dir && existsSync(dir) ? walk(dir).filter((f) => statSync(f).isFile() && !f.endsWith("SHA256SUMS")) : [];
  if (files.length) {
    lines.push("| artefact | sha256 |", "|---|---|");
    for (const f of files.sort()) lines.push(`| \`${path.basename(f)}\` | \`${sha256(f)}\` |`);
    lines.push("");
  }
  if (image.length) {
    lines.push("| image | digest |", "|---|---|");
    for (const i of image) {
      const [target, digest] = i.split("=");
      const name = imageMeta({ target })
        .find((l) => l.startsWith("image="))
        ?.slice(6);
      if (!digest) fail(`--image ${i}: expected TARGET=DIGEST`);
      lines.push(`| \`${name}@${digest}\` | \`${digest}\` |`);
    }
  }
  return lines;
}

async function main(argv) {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      tag: { type: "string" },
      "action-dir": { type: "string" },
      check: { type: "boolean", default: false },
      platforms: { type: "string" },
      out: { type: "string" },
      tarball: { type: "string" },
      "dry-run": { type: "boolean", default: false },
      target: { type: "string" },
      registry: { type: "string" },
      local: { type: "boolean", default: false },
      dir: { type: "string" },
      image: { type: "string", multiple: true },
    },
  });
  switch (command) {
    case "version": {
      const version = cliVersion();
      if (values.tag !== undefined && values.tag !== `v${version}`)
        fail(`the tag ${values.tag} is not v${version} (apps/cli/package.json): run \`node scripts/release.mjs prepare\` for it first`);
      return [version];
    }
    case "prepare":
      return prepare(positionals[0]);
    case "action-dist":
      return actionDist({ actionDir: values["action-dir"] && path.resolve(values["action-dir"]), check: values.check });
    case "engine":
      return engine({ platforms: values.platforms, out: values.out && path.resolve(values.out) });
    case "publish":
      return publish({ tarball: values.tarball, dryRun: values["dry-run"] });
    case "image-meta":
      return imageMeta({ target: values.target, registry: values.registry });
    case "images":
      if (!values.local) fail("images builds locally only (--local); the release workflow builds them with docker/build-push-action");
      return imagesLocal();
    case "summary":
      return summary({ dir: values.dir && path.resolve(values.dir), image: values.image ?? [] });
    default:
      fail(`unknown subcommand "${command ?? ""}" (version, prepare, action-dist, engine, publish, image-meta, images, summary)`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    for (const line of await main(process.argv.slice(2))) console.log(line);
  } catch (err) {
    if (!(err instanceof ReleaseError)) throw err;
    console.error(`release: ${err.message}`);
    process.exit(2);
  }
}
