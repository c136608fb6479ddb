// The verdicts' choices, set by the user: the practical-equivalence margin, a stated
// run-to-run CV, the primary metric, the effect the power line is for and the
// failure share's margin. A plain GET form, so they live in the URL (?margin=5&primary=p99)
// next to the selection and work without JavaScript.
import { DEFAULT_MARGIN_PERCENT, MARGIN_PARAM, RUN_CV_PARAM } from "@opsbench/api";
import { DEFAULT_EFFECT, DEFAULT_FAILURE_MARGIN, DEFAULT_PRIMARY_METRIC, METRIC_CATALOG } from "@opsbench/core";

export function CompareMarginControl({
  selection,
  marginPercent,
  runCvPercent,
  choices = {},
}: {
  selection: URLSearchParams;
  marginPercent: number;
  /** A stated run-to-run CV (percent), or undefined: single runs are then judged within-run only. */
  runCvPercent?: number | undefined;
  /** The primary metric, effect and failure margin the query chose (fractions), when it chose them. */
  choices?: { primaryMetric?: string; effect?: number; failureMargin?: number };
}) {
  return (
    <form
      method="get"
      action="/compare"
      data-testid="cmp-margin-form"
      className="flex flex-wrap items-center gap-2 text-xs text-zinc-700 print:hidden"
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
      <label htmlFor="cmp-primary" title="Judged in the family; the other metrics are descriptive">
        Primary metric
      </label>
      <select
        id="cmp-primary"
        data-testid="cmp-primary"
        name="primary"
        defaultValue={choices.primaryMetric ?? DEFAULT_PRIMARY_METRIC}
        className="rounded border border-zinc-300 px-1 py-0.5"
      >
        {METRIC_CATALOG.filter((m) => !m.descriptiveOnly).map((m) => (
          <option key={m.key} value={m.key}>
            {m.key}
          </option>
        ))}
      </select>
      <PercentField
        id="cmp-effect"
        name="effect"
        label="Effect (%)"
        title="The difference the power line is for"
        value={choices.effect === undefined ? undefined : choices.effect * 100}
        placeholder={String(DEFAULT_EFFECT * 100)}
        max={100}
      />
      <PercentField
        id="cmp-failure-margin"
        name="failureMargin"
        label="Failure margin (±% of the odds)"
        title="How far the failure odds may move and count as the same"
        value={choices.failureMargin === undefined ? undefined : choices.failureMargin * 100}
        placeholder={String(DEFAULT_FAILURE_MARGIN * 100)}
        max={1000}
      />
      <button type="submit" className="rounded border border-zinc-300 bg-white px-2 py-0.5 hover:bg-zinc-50">
        Apply
      </button>
      {marginPercent !== DEFAULT_MARGIN_PERCENT && <span className="text-zinc-500">(default {DEFAULT_MARGIN_PERCENT}%)</span>}
    </form>
  );
}

/** A labelled percent field of the form, 0 to `max` (default 50; its test id is its id). */
function PercentField(p: {
  id: string;
  name: string;
  label: string;
  title: string;
  value: number | undefined;
  placeholder?: string;
  max?: number;
}) {
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
        max={p.max ?? 50}
        step={0.5}
        defaultValue={p.value}
        placeholder={p.placeholder}
        className="w-16 rounded border border-zinc-300 px-1 py-0.5 font-mono"
      />
    </>
  );
}
