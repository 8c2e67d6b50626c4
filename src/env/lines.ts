/**
 * Lines of a stream, each at most `maxBytes` long: a peer that floods one endless
 * line cannot make us buffer without bound. Split on \n (a \r before it is dropped),
 * decoded as UTF-8 line by line (a \n byte never occurs inside a multi-byte character).
 */
import type { Readable } from 'node:stream';

export interface LineHandlers {
  line(text: string): void;
  /** A line grew past the cap; its bytes so far are dropped, and so is the rest of it. */
  overflow(bytesSeen: number): void;
}

export function readLines(stream: Readable, maxBytes: number, on: LineHandlers): void {
  let parts: Buffer[] = [];
  let size = 0;
  /** Inside a line that overflowed: drop until its end. */
  let skipping = false;
  const emit = (tail: Buffer): void => {
    const buf = parts.length ? Buffer.concat([...parts, tail]) : tail;
    parts = [];
    size = 0;
    let end = buf.length;
    if (end > 0 && buf[end - 1] === 13) end--;
    on.line(buf.subarray(0, end).toString('utf8'));
  };
  stream.on('data', (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
      if (skipping) {
        if (nl >= 0) skipping = false;
      } else if (size + piece.length > maxBytes) {
        on.overflow(size + piece.length);
        parts = [];
        size = 0;
        skipping = nl < 0;
      } else if (nl >= 0) {
        emit(piece);
      } else {
        parts.push(Buffer.from(piece));
        size += piece.length;
      }
      if (nl < 0) break;
      start = nl + 1;
    }
  });
  stream.on('end', () => {
    if (!skipping && size > 0) emit(Buffer.alloc(0));
  });
  stream.on('error', () => undefined);
}
