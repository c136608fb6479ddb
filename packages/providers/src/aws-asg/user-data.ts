// An aws-asg target's own container: the boot script (EC2 user data) opsbench renders so that an instance of a
// stock AMI installs Docker, pulls the image and runs it with the instance's port published to the container's.
// The env goes into a root-only env file (docker --env-file takes each line as NAME=value, unquoted), written
// through a quoted here-document so that nothing in a value is expanded by the shell.
import type { AsgContainer } from "@opsbench/core";

/** A word the shell reads as exactly `s` (single-quoted; a ' inside becomes '\''). */
export const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

const ENV_FILE = "/etc/opsbench-app.env";
const HEREDOC_END = "OPSBENCH_ENV_END";

/** The boot script that runs `container` on an instance, its `hostPort` published to the container's port. */
export function containerUserData(container: AsgContainer, hostPort: number, runId: string): string {
  const port = container.port ?? hostPort;
  const env = { PORT: String(port), ...container.env };
  const lines = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  // Values are checked for line breaks by the spec; a line equal to the end marker cannot occur.
  if (lines.some((l) => /[\r\n]/.test(l))) throw new Error("a container env value holds a line break");
  const image = shellQuote(container.image);
  return [
    "#!/bin/bash",
    `# opsbench run ${runId}: runs the container ${container.image}, port ${hostPort} -> ${port} (rendered by opsbench).`,
    "set -euo pipefail",
    "if ! command -v docker >/dev/null 2>&1; then",
    "  if command -v dnf >/dev/null 2>&1; then dnf install -y docker",
    "  elif command -v yum >/dev/null 2>&1; then yum install -y docker",
    "  elif command -v apt-get >/dev/null 2>&1; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y docker.io",
    '  else echo "opsbench: no dnf, yum or apt-get to install Docker with" >&2; exit 1',
    "  fi",
    "fi",
    "systemctl enable --now docker",
    "umask 077",
    `cat > ${ENV_FILE} <<'${HEREDOC_END}'`,
    ...lines,
    HEREDOC_END,
    `docker pull ${image}`,
    "docker rm -f opsbench-app >/dev/null 2>&1 || true",
    `docker run -d --name opsbench-app --restart always -p ${hostPort}:${port} --env-file ${ENV_FILE} ${image}`,
    "",
  ].join("\n");
}

/** Graviton instance families (t4g, m7g, c7gn, g5g, a1...) boot arm64 images; the rest x86_64. */
export const instanceArchitecture = (instanceType: string): "arm64" | "x86_64" =>
  /^([a-z]+\d+g[a-z]*|a1)$/.test(instanceType.split(".")[0] ?? "") ? "arm64" : "x86_64";
