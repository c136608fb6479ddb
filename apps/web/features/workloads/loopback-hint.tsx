import { scriptLoopbackHosts } from "@opsbench/core";

/**
 * The warning for a script that sends its load to a loopback address: k6 runs in the runner's sandbox, where
 * localhost is the runner itself, so every request would fail (goodput 0%). Shown in the form while typing (the
 * save still goes through) and on the workload page. Nothing when the script names none.
 */
export function LoopbackHint({ source }: { source: string }) {
  const hosts = scriptLoopbackHosts(source);
  if (hosts.length === 0) return null;
  return (
    <p
      data-testid="script-loopback-hint"
      data-hosts={hosts.join(",")}
      role="status"
      className="rounded border border-amber-300 bg-amber-50 px-2 py-1.5 text-xs text-amber-900"
    >
      The script sends requests to {hosts.map((h, i) => [i > 0 ? ", " : "", <code key={h}>{h}</code>])}, a loopback address: in a run that
      is the machine k6 runs on, not the target, so its requests would fail. Use{" "}
      <code className="rounded bg-amber-100 px-1">__ENV.OPSBENCH_BASE_URL</code> (the target's address) instead.
    </p>
  );
}
