// The buttons in a settings table's row. Each is a small form that posts the row's id to a server action, so it works
// before the page hydrates and needs no client code.
import { buttonSecondary } from "./panel";

type RowAction = (form: FormData) => Promise<void>;

/** A button that posts the row's `id` to `action`. */
export function RowButton({ action, id, label }: { action: RowAction; id: string; label: string }) {
  return (
    <form action={action}>
      <input type="hidden" name="id" value={id} />
      <button type="submit" className={buttonSecondary}>
        {label}
      </button>
    </form>
  );
}

/**
 * A yes/no setting of the row: its state in words, and a button that posts the other state as `field`
 * ("true"/"false") with the row's `id`.
 */
export function RowToggle({
  action,
  id,
  field,
  on,
  state,
  turn,
}: {
  action: RowAction;
  id: string;
  field: string;
  on: boolean;
  /** The state in words: [when on, when off]. */
  state: [string, string];
  /** The button's label: [to turn it off, to turn it on]. */
  turn: [string, string];
}) {
  return (
    <form action={action} className="flex items-center gap-2">
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name={field} value={on ? "false" : "true"} />
      <span>{on ? state[0] : state[1]}</span>
      <button type="submit" className={buttonSecondary}>
        {on ? turn[0] : turn[1]}
      </button>
    </form>
  );
}
