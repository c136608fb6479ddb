import type { Buckets } from "./histogram";

// Compact storage of sparse buckets, as HdrHistogram encodes its counts: signed
// (zigzag) varints, first the lowest bucket index, then each bucket's count, with
// a run of k empty buckets written as -k. Dense buckets cost a byte or two,
// isolated ones two (JSON pairs take ~10). The k6 output extension writes the same.

export function encodeBuckets(buckets: Buckets): Uint8Array {
  const out: number[] = [];
  const zigzag = (v: number) => {
    let n = v >= 0 ? v * 2 : -v * 2 - 1;
    while (n >= 0x80) {
      out.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    out.push(n);
  };
  buckets.forEach(([index, count], n) => {
    if (n === 0) zigzag(index);
    else if (index - buckets[n - 1]![0] > 1) zigzag(-(index - buckets[n - 1]![0] - 1));
    zigzag(count);
  });
  return Uint8Array.from(out);
}

export function decodeBuckets(bytes: Uint8Array): Buckets {
  const out: Buckets = [];
  let pos = 0;
  const zigzag = () => {
    let n = 0;
    let scale = 1;
    for (;;) {
      if (pos >= bytes.length) throw new Error("truncated histogram encoding");
      const b = bytes[pos++]!;
      n += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 0x80;
    }
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  };
  if (bytes.length === 0) return out;
  let index = zigzag();
  while (pos < bytes.length) {
    const v = zigzag();
    if (v < 0) index += -v;
    else if (v === 0) throw new Error("corrupt histogram encoding: a zero count");
    else out.push([index++, v]);
  }
  return out;
}
