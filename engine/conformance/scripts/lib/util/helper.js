// A nested local module, imported by both lib/math.js and lib/greeter.js: evaluated once per VU.
export let loads = 0;
loads++;

export function twice(n) {
  return n * 2;
}
