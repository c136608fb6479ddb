// A script that sends its load to a loopback address (http://localhost, 127.0.0.1, [::1]) reaches the machine k6
// runs on, not the target: in a sandboxed runner nothing answers, and every request fails. The workload form warns
// at save and the workload page says so; the address to use is __ENV.OPSBENCH_BASE_URL (the target's).

/** A URL whose host is a loopback name or address: localhost (and *.localhost), 127.0.0.0/8, [::1], 0.0.0.0. */
const LOOPBACK_URL =
  /\b(?:https?|wss?):\/\/((?:[a-z0-9-]+\.)*localhost|127(?:\.\d{1,3}){3}|\[(?:0{0,4}:){2,7}0{0,3}1\]|\[::1\]|0\.0\.0\.0)(?![\w.-])/gi;

/** The loopback hosts a script names in URLs (lower-cased, each once, in order of first appearance); [] when none. */
export function scriptLoopbackHosts(script: string): string[] {
  const hosts = new Set<string>();
  for (const m of script.matchAll(LOOPBACK_URL)) hosts.add(m[1]!.toLowerCase());
  return [...hosts];
}
