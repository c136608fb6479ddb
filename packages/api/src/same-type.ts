/**
 * True when a schema's output and the TypeScript type a service returns fit each other both ways, so
 * `true satisfies SameShape<z.output<typeof schema>, View>` fails the type check as soon as either drifts.
 */
export type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** One way only: what the schema lets through fits T (for a type still looser than its schema, e.g. `flags: unknown`). */
export type Fits<A, B> = [A] extends [B] ? true : false;
