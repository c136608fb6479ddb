// A run's provenance on its page (under the title) and in the runs list (a commit/branch cell), and the list's
// filter form. Server-rendered, no state: the filter is a GET form, the URL is the filter.
import { hasProvenance, type RecordedProvenance, seriesKeyOfRun, seriesKeyText, seriesTitle } from "@opsbench/core";
import Link from "next/link";
import type { RunListFilter } from "./run-list-filter";

/** A build link only for http(s): the API refuses any other scheme, and a page never trusts a stored value to be a safe href. */
const httpHref = (url: string | null): string | null => {
  if (!url || !URL.canParse(url)) return null;
  const { protocol } = new URL(url);
  return protocol === "http:" || protocol === "https:" ? url : null;
};

const shortCommit = (commit: string) => commit.slice(0, 8);

/** The line under the run's title: short commit (full in its title), branch, "PR #n", the build link, label chips; nothing without any. */
export function RunProvenance({ provenance: p }: { provenance: RecordedProvenance }) {
  if (!hasProvenance(p)) return null;
  const build = httpHref(p.buildUrl);
  const labels = Object.entries(p.labels);
  return (
    <div data-testid="run-provenance" className="mt-1.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-600">
      {p.commit && (
        <span data-testid="run-provenance-commit" className="font-mono" title={p.commit}>
          {shortCommit(p.commit)}
        </span>
      )}
      {p.branch && (
        <span data-testid="run-provenance-branch" className="font-mono">
          {p.branch}
        </span>
      )}
      {p.pullRequest !== null && <span data-testid="run-provenance-pr">PR #{p.pullRequest}</span>}
      {build && (
        <a data-testid="run-provenance-build" href={build} rel="noreferrer" className="text-blue-600 hover:underline">
          build
        </a>
      )}
      {labels.length > 0 && (
        <ul data-testid="run-provenance-labels" className="flex flex-wrap gap-1">
          {labels.map(([k, v]) => (
            <li key={k} className="rounded bg-zinc-100 px-1 font-mono text-2xs text-zinc-700">
              {k}={v}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The link to the trend of the run's series (docs/trends.md): its series name, else its target x workload; none for neither. */
export function SeriesLink({
  run,
  testId = "run-series-link",
}: {
  run: { provenance: Pick<RecordedProvenance, "series">; target: { name: string } | null; workload: { name: string } | null };
  testId?: string;
}) {
  const key = seriesKeyOfRun({ series: run.provenance.series, target: run.target, workload: run.workload });
  if (!key) return null;
  return (
    <Link data-testid={testId} href={`/series/${encodeURIComponent(seriesKeyText(key))}`} className="text-blue-600 hover:underline">
      {seriesTitle(key)}
    </Link>
  );
}

/** The runs list's cell: short commit and branch, or nothing. */
export function ProvenanceCell({ provenance: p }: { provenance: RecordedProvenance }) {
  if (!p.commit && !p.branch) return null;
  return (
    <span className="inline-flex gap-2">
      {p.commit && <span title={p.commit}>{shortCommit(p.commit)}</span>}
      {p.branch && <span className="text-zinc-600">{p.branch}</span>}
    </span>
  );
}

/** A small GET form: submitting it reloads the list with the filters in the URL; "clear" drops them. */
export function RunFilterForm({ filter, error }: { filter: RunListFilter; error: string | null }) {
  const box = "w-36 rounded border border-zinc-300 px-1.5 py-0.5 font-mono text-xs";
  return (
    <form
      method="get"
      action="/"
      data-testid="run-filter"
      className="flex flex-wrap items-center gap-2 border-b border-zinc-100 px-3 py-1.5 text-xs"
    >
      <label className="flex items-center gap-1">
        <span className="text-zinc-500">commit</span>
        <input name="commit" defaultValue={filter.commit ?? ""} placeholder="sha prefix" className={box} />
      </label>
      <label className="flex items-center gap-1">
        <span className="text-zinc-500">branch</span>
        <input name="branch" defaultValue={filter.branch ?? ""} className={box} />
      </label>
      <label className="flex items-center gap-1">
        <span className="text-zinc-500">label</span>
        <input name="label" defaultValue={filter.label ?? ""} placeholder="key=value" className={box} />
      </label>
      <button type="submit" className="rounded border border-zinc-300 px-2 py-0.5 hover:bg-zinc-50">
        Filter
      </button>
      {(filter.commit || filter.branch || filter.label) && (
        <a href="/" className="text-blue-600 hover:underline">
          clear
        </a>
      )}
      {error && (
        <span role="alert" data-testid="run-filter-error" className="text-red-600">
          {error}
        </span>
      )}
    </form>
  );
}

/** The script's environment besides OPSBENCH_BASE_URL (`--env`, `--secret`): values as given, a secret's as ***. */
export function RunScriptEnv({ env }: { env: Array<{ key: string; value: string; secret: boolean }> }) {
  if (env.length === 0) return null;
  return (
    <div data-testid="run-script-env" className="mt-1 flex flex-wrap items-center gap-1 text-xs text-zinc-600">
      <span>Script __ENV:</span>
      <ul className="flex flex-wrap gap-1">
        {env.map((e) => (
          <li
            key={e.key}
            data-testid="run-script-env-item"
            data-secret={e.secret ? "true" : undefined}
            title={e.secret ? "a workspace secret: its value is never shown" : undefined}
            className="rounded bg-zinc-100 px-1 font-mono text-2xs text-zinc-700"
          >
            {e.key}={e.value}
          </li>
        ))}
      </ul>
    </div>
  );
}
