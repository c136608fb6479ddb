// The practical-equivalence margin of the verdicts, set by the user: a plain GET
// form, so the margin lives in the URL (?margin=5) next to the selection and
// works without JavaScript.
import { DEFAULT_MARGIN_PERCENT, MARGIN_PARAM, RUN_CV_PARAM } from "@opsbench/api";

export function CompareMarginControl({
  selection,
  marginPercent,
  runCvPercent,
}: {
  selection: URLSearchParams;
  marginPercent: number;
  /** A stated run-to-run CV (percent), or undefined: single runs are then judged within-run only. */
  runCvPercent?: number | undefined;
}) {
  return (
    <form
      method="get"
      action="/compare"
      data-testid="cmp-margin-form"
      className="flex items-center gap-2 text-xs text-zinc-700 print:hidden"
    >
      {[...selection.entries()].map(([k, v], i) => (
        <input key={`${k}-${i}`} type="hidden" name={k} value={v} />
      ))}
      <PercentField
        id="cmp-margin"
        name={MARGIN_PARAM}
        label="Equivalence margin (±% of the baseline)"
        title="Differences whose 95% interval lies inside ± this share of the baseline count as no practical difference"
        value={marginPercent}
      />
      <PercentField
        id="cmp-run-cv"
        name={RUN_CV_PARAM}
        label="Run-to-run CV (%, single runs)"
        title="With one run a side, a stated run-to-run coefficient of variation widens the interval so the verdict is between configurations; empty: the verdicts say only what the two runs showed (within-run)"
        value={runCvPercent}
        placeholder="none"
      />
      <button type="submit" className="rounded border border-zinc-300 bg-white px-2 py-0.5 hover:bg-zinc-50">
        Apply
      </button>
      {marginPercent !== DEFAULT_MARGIN_PERCENT && <span className="text-zinc-500">(default {DEFAULT_MARGIN_PERCENT}%)</span>}
    </form>
  );
}

/** A labelled 0-50 percent field of the form (its test id is its id). */
function PercentField(p: { id: string; name: string; label: string; title: string; value: number | undefined; placeholder?: string }) {
  return (
    <>
      <label htmlFor={p.id} title={p.title}>
        {p.label}
      </label>
      <input
        id={p.id}
        data-testid={p.id}
        name={p.name}
        type="number"
        min={0}
        max={50}
        step={0.5}
        defaultValue={p.value}
        placeholder={p.placeholder}
        className="w-16 rounded border border-zinc-300 px-1 py-0.5 font-mono"
      />
    </>
  );
}
