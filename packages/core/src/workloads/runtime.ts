// The helpers every generated k6 script carries: key choice (uniform,
// sequential, Zipf), weighted request choice, and the template functions. They
// are kept as JavaScript source so the script embeds exactly the code the unit
// tests run (loadRuntime evaluates the same text; no I/O).

export const K6_RUNTIME_SOURCE = `
// Zipf(s) over ranks 1..n by rejection-inversion (Hoermann & Derflinger 1996, as in
// Apache Commons RNG): O(1) memory and time per sample, for any n and s > 0.
function obZipf(n, s, random) {
  var T = 1e-8;
  function helper1(x) { return Math.abs(x) > T ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1 / 3 - 0.25 * x)); }
  function helper2(x) { return Math.abs(x) > T ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + x * (1 / 3) * (1 + 0.25 * x)); }
  function hIntegral(x) { var l = Math.log(x); return helper2((1 - s) * l) * l; }
  function h(x) { return Math.exp(-s * Math.log(x)); }
  function hIntegralInverse(x) { var t = x * (1 - s); if (t < -1) t = -1; return Math.exp(helper1(t) * x); }
  var hX1 = hIntegral(1.5) - 1;
  var hN = hIntegral(n + 0.5);
  var cut = 2 - hIntegralInverse(hIntegral(2.5) - h(2));
  return function () {
    for (;;) {
      var u = hN + random() * (hX1 - hN);
      var x = hIntegralInverse(u);
      var k = Math.floor(x + 0.5);
      if (k < 1) k = 1; else if (k > n) k = n;
      if (k - x <= cut || u >= hIntegral(k + 0.5) - h(k)) return k;
    }
  };
}

// A row index in [0, size): "uniform", "sequential" (counter() mod size) or { zipf: s } (row 0 is the hottest).
function obPicker(size, choice, random, counter) {
  if (choice === "sequential") return function () { return counter() % size; };
  if (choice && typeof choice === "object" && choice.zipf > 0) {
    var z = obZipf(size, choice.zipf, random);
    return function () { return z() - 1; };
  }
  return function () { return Math.floor(random() * size); };
}

// An index into weights, chosen with probability weight / sum(weights).
function obWeighted(weights, random) {
  var cum = [], total = 0;
  for (var i = 0; i < weights.length; i++) { total += weights[i]; cum.push(total); }
  return function () {
    var r = random() * total;
    for (var j = 0; j < cum.length; j++) if (r < cum[j]) return j;
    return cum.length - 1;
  };
}

// Row i of a generated pool: dimensions { user: 100, device: 5 } give rows
// { user: 1..100, device: 1..5 } with the last dimension varying fastest.
function obDimensionRow(names, sizes, i) {
  var row = { index: i };
  for (var d = names.length - 1; d >= 0; d--) { row[names[d]] = (i % sizes[d]) + 1; i = Math.floor(i / sizes[d]); }
  return row;
}

function obRandomInt(random, a, b) { return a + Math.floor(random() * (b - a + 1)); }

var OB_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
function obRandomString(random, n) {
  var s = "";
  for (var i = 0; i < n; i++) s += OB_CHARS.charAt(Math.floor(random() * OB_CHARS.length));
  return s;
}

function obUuid(random) {
  var hex = "0123456789abcdef", s = "";
  for (var i = 0; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) s += "-";
    else if (i === 14) s += "4";
    else if (i === 19) s += hex.charAt(8 + Math.floor(random() * 4));
    else s += hex.charAt(Math.floor(random() * 16));
  }
  return s;
}

var OB_PAYLOADS = {};
function obPayload(n) { return OB_PAYLOADS[n] || (OB_PAYLOADS[n] = new Array(n + 1).join("x")); }
`;

export interface Runtime {
  obZipf(n: number, s: number, random: () => number): () => number;
  obPicker(size: number, choice: unknown, random: () => number, counter: () => number): () => number;
  obWeighted(weights: number[], random: () => number): () => number;
  obDimensionRow(names: string[], sizes: number[], i: number): Record<string, number>;
  obRandomInt(random: () => number, a: number, b: number): number;
  obRandomString(random: () => number, n: number): string;
  obUuid(random: () => number): string;
  obPayload(n: number): string;
}

/** The runtime helpers as functions, evaluated from the very source the scripts embed. */
export function loadRuntime(): Runtime {
  const names = ["obZipf", "obPicker", "obWeighted", "obDimensionRow", "obRandomInt", "obRandomString", "obUuid", "obPayload"];
  return new Function(`${K6_RUNTIME_SOURCE}\nreturn { ${names.join(", ")} };`)() as Runtime;
}
