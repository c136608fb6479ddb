// A k6 script that names a loopback address (http://localhost:8080, 127.0.0.1, [::1]) instead of the target's
// address in __ENV.OPSBENCH_BASE_URL sends its load to the load generator's own machine, not to the target: in
// opsbench's sandbox nothing listens there, so every request fails. The workload form warns of it, and a run whose
// every request failed says it is the likely cause. (The load-host policy's isLoopbackAddress decides admission of a
// resolved host; this reads a script's text, a layer below, for a hint only.)

/** URLs in a script's text: scheme, then the host (a bracketed IPv6 address or a name/IPv4 address). */
const URL_HOST = /\b(?:https?|wss?):\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)/g;

/** localhost and its subdomains, 127.0.0.0/8, ::1 (also ::ffff:127.x.y.z), and 0.0.0.0 (which reaches the same machine). */
function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "0.0.0.0") return true;
  return h === "::1" || /^(0{0,4}:){2,7}0{0,3}1$/.test(h) || /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The loopback hosts a script's URLs name, each once, in the order they first appear; empty when none. */
export function scriptLoopbackHosts(script: string): string[] {
  const hosts: string[] = [];
  for (const m of script.matchAll(URL_HOST)) {
    const host = m[1]!.toLowerCase();
    if (isLoopbackHost(host) && !hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}
