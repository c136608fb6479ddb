// A small protocol-buffers writer: the few wire types the remote-write and OTLP messages use (varint, 64-bit, and
// length-delimited), so the worker needs no protobuf runtime or generated code for two fixed, small schemas
// (docs/dependencies.md). Numbers above 2^53 (OTLP's nanoseconds) are written from bigints.
export class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private size = 0;

  private push(bytes: Uint8Array) {
    this.chunks.push(bytes);
    this.size += bytes.length;
  }

  private varint(value: number | bigint) {
    let v = BigInt.asUintN(64, BigInt(value));
    const out: number[] = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wireType: 0 | 1 | 2 | 5) {
    this.varint((field << 3) | wireType);
  }

  /** int64/uint32/bool/enum (wire type 0); a zero is still written (callers leave out fields they do not set). */
  uint(field: number, value: number | bigint): this {
    this.tag(field, 0);
    this.varint(value);
    return this;
  }

  double(field: number, value: number): this {
    this.tag(field, 1);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, value, true);
    this.push(b);
    return this;
  }

  /** fixed64 (OTLP's time_unix_nano). */
  fixed64(field: number, value: bigint): this {
    this.tag(field, 1);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, value, true);
    this.push(b);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, 2);
    this.varint(value.length);
    this.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  /** An embedded message, written by `write` into a writer of its own. */
  message(field: number, write: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    write(inner);
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
