import type { Buckets } from "./histogram";

// Compact storage of sparse buckets, about 2 bytes a bucket (JSON pairs take ~10):
// zigzag varint of the first index, then for each bucket its count and the gap
// to the next index, as unsigned varints. The k6 output extension writes the same.

export function encodeBuckets(buckets: Buckets): Uint8Array {
  const out: number[] = [];
  const varint = (n: number) => {
    while (n >= 0x80) {
      out.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    out.push(n);
  };
  buckets.forEach(([index, count], n) => {
    if (n === 0) varint(index >= 0 ? index * 2 : -index * 2 - 1);
    else varint(index - buckets[n - 1]![0]);
    varint(count);
  });
  return Uint8Array.from(out);
}

export function decodeBuckets(bytes: Uint8Array): Buckets {
  const out: Buckets = [];
  let pos = 0;
  const varint = () => {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (pos >= bytes.length) throw new Error("truncated histogram encoding");
      const b = bytes[pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 0x80;
    }
  };
  if (bytes.length === 0) return out;
  const z = varint();
  let index = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  out.push([index, varint()]);
  while (pos < bytes.length) {
    index += varint();
    out.push([index, varint()]);
  }
  return out;
}
