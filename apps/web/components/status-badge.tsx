const STYLES: Record<string, string> = {
  QUEUED: "bg-zinc-100 text-zinc-700 ring-zinc-300",
  PROVISIONING: "bg-sky-50 text-sky-700 ring-sky-300",
  RUNNING: "bg-blue-50 text-blue-700 ring-blue-300",
  ANALYZING: "bg-indigo-50 text-indigo-700 ring-indigo-300",
  SUCCEEDED: "bg-emerald-50 text-emerald-700 ring-emerald-300",
  FAILED: "bg-red-50 text-red-700 ring-red-300",
  ABORTED: "bg-amber-50 text-amber-800 ring-amber-300",
  SKIPPED: "bg-zinc-50 text-zinc-500 ring-zinc-200",
};
const LIVE = new Set(["PROVISIONING", "RUNNING", "ANALYZING"]);

/** A run or step status. The text is the status exactly as stored (e.g. "SUCCEEDED"). */
export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span
      data-testid={testId}
      data-status={status}
      className={`inline-flex items-center gap-1.5 rounded px-1.5 py-0.5 font-mono text-2xs font-medium ring-1 ring-inset ${STYLES[status] ?? STYLES.QUEUED}`}
    >
      {LIVE.has(status) && <span aria-hidden className="h-1.5 w-1.5 animate-pulse rounded-full bg-current" />}
      {status}
    </span>
  );
}
