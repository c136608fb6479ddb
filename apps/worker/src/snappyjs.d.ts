// snappyjs ships no types: the two functions the exporter (and its tests) use. Each answers the type it was given.
declare module "snappyjs" {
  export function compress(input: Uint8Array): Uint8Array;
  export function uncompress(input: Uint8Array, maxLength?: number): Uint8Array;
}
