// A k6 result file, gzip-compressed or not (told by its first two bytes), as numbered
// lines split by Node's readline. A line that cannot be handed over whole (longer than
// 1 MiB, or cut off by a damaged gzip stream) comes as an unreadable line with the
// reason, so the reader counts it rather than failing the import.
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { Transform, type Readable, type Writable } from "node:stream";
import { createGunzip } from "node:zlib";
import { K6InputError } from "./k6-input-error";

export const MAX_LINE_BYTES = 1 << 20;
const TOO_LONG = `line longer than ${MAX_LINE_BYTES / (1 << 20)} MiB`;

/** Line numbers are 1-based; `text` has no line ending. */
export type K6Line = { lineNo: number; text: string } | { lineNo: number; unreadable: string };

export interface K6FileLines {
  gzip: boolean;
  /** The file's size on disk. */
  bytes: number;
  /** How much of the file has been read (compressed bytes, for a gzip file). */
  bytesRead: () => number;
  lines: AsyncGenerator<K6Line, void, undefined>;
}

/** Opens `file` for reading; throws K6InputError when it is missing, a directory or unreadable. */
export async function openK6File(file: string): Promise<K6FileLines> {
  const info = await stat(file).catch((err: NodeJS.ErrnoException) => {
    throw new K6InputError(err.code === "ENOENT" ? `no such file: ${file}` : `cannot read ${file}: ${err.message}`);
  });
  if (info.isDirectory()) throw new K6InputError(`${file} is a directory, not a k6 result file`);
  const gzip = await startsWithGzipMagic(file);
  const progress = { bytesRead: 0 };
  return { gzip, bytes: info.size, bytesRead: () => progress.bytesRead, lines: numberedLines(file, gzip, progress) };
}

async function* numberedLines(file: string, gzip: boolean, progress: { bytesRead: number }): AsyncGenerator<K6Line, void, undefined> {
  const input = createReadStream(file, { highWaterMark: 256 * 1024 });
  const gunzip = gzip ? createGunzip() : null;
  const text = capLineLength(MAX_LINE_BYTES);
  const rl = createInterface({ input: text, crlfDelay: Infinity });
  const gunzipFailure: { error: (Error & { code?: string }) | null } = { error: null };

  // The file is paused while a stream after it is full. gunzip itself is never paused, so
  // what it decompressed before a damaged or cut-off part has been handed on when it fails.
  const waitingFor = new Set<Writable>();
  const forward = (from: Readable, to: Writable) => {
    from.on("data", (chunk: Buffer) => {
      if (to.write(chunk) || waitingFor.has(to)) return;
      waitingFor.add(to);
      input.pause();
      to.once("drain", () => {
        waitingFor.delete(to);
        if (waitingFor.size === 0) input.resume();
      });
    });
    from.on("end", () => to.end());
  };
  input.on("data", (chunk) => {
    progress.bytesRead += chunk.length;
  });
  input.on("error", (err) => text.destroy(new K6InputError(`cannot read ${file}: ${err.message}`)));
  if (gunzip) {
    forward(input, gunzip);
    forward(gunzip, text);
    gunzip.on("error", (err) => {
      gunzipFailure.error = err;
      input.destroy();
      text.end();
    });
  } else {
    forward(input, text);
  }

  let n = 0;
  // One line is held back: only at the end is it known whether the last one was cut off.
  let held: string | null = null;
  try {
    for await (const line of rl) {
      if (held !== null) yield numbered(++n, held);
      held = line;
    }
    const failure = gunzipFailure.error;
    if (!failure) {
      if (held !== null) yield numbered(++n, held);
      return;
    }
    if (n === 0 && held === null) throw new K6InputError(`${file} looks gzip-compressed but cannot be decompressed: ${failure.message}`);
    const why = failure.code === "Z_BUF_ERROR" ? "the compressed data ends early" : "the compressed data is damaged";
    if (text.endsMidLine()) {
      yield { lineNo: n + 1, unreadable: `cut off: ${why} (${failure.message})` };
    } else {
      if (held !== null) yield numbered(++n, held);
      yield { lineNo: n + 1, unreadable: `${why} (${failure.message}); the rest of the file is lost` };
    }
  } finally {
    rl.close();
    input.destroy();
    gunzip?.destroy();
    text.destroy();
  }
}

/** A line capLineLength cut is still longer than the limit, so it is told here. */
function numbered(lineNo: number, text: string): K6Line {
  // A UTF-16 unit is at most 3 UTF-8 bytes: only a long string needs counting.
  if (text.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(text) > MAX_LINE_BYTES) return { lineNo, unreadable: TOO_LONG };
  return { lineNo, text };
}

/**
 * Passes bytes on, but at most `max` + 1 of any one line: readline keeps a line in memory
 * until its end, and a file without line breaks would otherwise become one huge string.
 */
function capLineLength(max: number): Transform & { endsMidLine: () => boolean } {
  let lineBytes = 0; // of the line in progress, seen so far
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      // In pieces of at most `max` bytes: a line that starts and ends within one piece is short enough.
      for (let at = 0; at < chunk.length; at += max) {
        const piece = chunk.subarray(at, at + max);
        const firstBreak = piece.indexOf(10);
        const head = firstBreak === -1 ? piece.length : firstBreak; // continues the line in progress
        const keep = Math.min(head, Math.max(0, max + 1 - lineBytes));
        if (keep > 0) this.push(piece.subarray(0, keep));
        if (firstBreak === -1) {
          lineBytes += head;
        } else {
          this.push(piece.subarray(firstBreak));
          lineBytes = piece.length - 1 - piece.lastIndexOf(10);
        }
      }
      done();
    },
  });
  return Object.assign(cap, { endsMidLine: () => lineBytes > 0 });
}

async function startsWithGzipMagic(file: string): Promise<boolean> {
  const fh = await open(file, "r").catch((err: Error) => {
    throw new K6InputError(`cannot read ${file}: ${err.message}`);
  });
  try {
    const buf = Buffer.alloc(2);
    const { bytesRead } = await fh.read(buf, 0, 2, 0);
    return bytesRead === 2 && buf[0] === 0x1f && buf[1] === 0x8b;
  } catch (err) {
    throw new K6InputError(`cannot read ${file}: ${(err as Error).message}`);
  } finally {
    await fh.close();
  }
}
