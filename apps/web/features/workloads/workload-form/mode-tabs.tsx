import type { WorkloadFormMode } from "./built-workloads";

const TABS: Array<[WorkloadFormMode, string]> = [
  ["preset", "Preset"],
  ["custom", "Build"],
  ["script", "Own k6 script"],
];

/**
 * How the workload is described: a preset, a kind built field by field, or the user's own k6 script. `modes`: the
 * tabs offered (editing has no Preset tab: a preset may make several workloads, an edit replaces one).
 */
export function ModeTabs({
  mode,
  onMode,
  modes,
}: {
  mode: WorkloadFormMode;
  onMode: (m: WorkloadFormMode) => void;
  modes?: WorkloadFormMode[];
}) {
  return (
    <div role="tablist" className="inline-flex gap-1 rounded border border-zinc-200 p-0.5">
      {TABS.filter(([m]) => !modes || modes.includes(m)).map(([m, label]) => (
        <button
          key={m}
          type="button"
          role="tab"
          aria-selected={mode === m}
          data-testid={`mode-${m}`}
          onClick={() => onMode(m)}
          className={`h-7 rounded px-3 text-xs font-medium ${mode === m ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100"}`}
        >
          {label}
        </button>
      ))}
    </div>
  );
}
