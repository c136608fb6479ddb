/** The file cannot be imported: `opsbench import k6` exits 2 and writes nothing. */
export class K6InputError extends Error {}
