/**
 * Beside a box's label: "default" while the box holds the value the schema would use anyway, so a default reads as
 * a value that is there (and can be changed), not as a grey placeholder that looks empty.
 */
export function DefaultMark({ value, byDefault }: { value: string; byDefault: string }) {
  if (value.trim() !== byDefault) return null;
  return (
    <span data-testid="default-mark" className="ml-1 rounded bg-zinc-100 px-1 text-2xs font-normal uppercase tracking-wide text-zinc-600">
      default
    </span>
  );
}
