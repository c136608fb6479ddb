import { Panel } from "@/components/panel";

/** The files the run's k6 script wrote with handleSummary(), each a download (GET /api/v1/runs/{id}/artifacts/{name}). */
export function RunArtifacts({ runId, artifacts }: { runId: string; artifacts: ReadonlyArray<{ name: string; size: number }> }) {
  if (!artifacts.length) return null;
  return (
    <Panel title="Files the script wrote (handleSummary)" testId="run-artifacts" className="mt-4">
      <ul className="divide-y divide-zinc-100 text-sm">
        {artifacts.map((a) => (
          <li key={a.name} className="flex items-center justify-between px-3 py-1.5">
            <a
              className="font-mono text-blue-700 hover:underline"
              href={`/api/v1/runs/${runId}/artifacts/${encodeURIComponent(a.name)}`}
              download
            >
              {a.name}
            </a>
            <span className="text-xs text-zinc-500">{a.size.toLocaleString("en")} bytes</span>
          </li>
        ))}
      </ul>
    </Panel>
  );
}
