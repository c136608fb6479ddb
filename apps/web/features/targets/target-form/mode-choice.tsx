/** A choice between a kind's ways (image or manifests, fixed or HPA...), as radio buttons; kept under an "@" key. */
export function ModeChoice<M extends string>({
  name,
  value,
  onChange,
  modes,
}: {
  name: string;
  value: M;
  onChange: (mode: M) => void;
  modes: ReadonlyArray<readonly [M, string]>;
}) {
  return (
    <div className="col-span-2 flex flex-wrap gap-x-4 gap-y-1 text-xs md:col-span-4" role="radiogroup">
      {modes.map(([m, label]) => (
        <label key={m} className="inline-flex items-center gap-1.5">
          <input type="radio" name={name} value={m} checked={value === m} onChange={() => onChange(m)} />
          {label}
        </label>
      ))}
    </div>
  );
}
