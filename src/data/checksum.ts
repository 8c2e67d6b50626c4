/**
 * The checksum the manifest pins: sha256 of the bytes memrl reads. A `.gz` file is
 * hashed uncompressed, so the hub's release converted and compressed here and the same
 * records compressed by another tool are one release.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

export interface Checksum {
  sha256: string;
  /** Bytes hashed (uncompressed for .gz). */
  size: number;
}

export function isGzipPath(path: string): boolean {
  return path.endsWith('.gz');
}

/** Streams the file (through gunzip when `gzip`, by default for a .gz path): large files never sit in memory whole. */
export async function contentChecksum(path: string, gzip = isGzipPath(path)): Promise<Checksum> {
  const hash = createHash('sha256');
  let size = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done();
    },
  });
  if (gzip) await pipeline(createReadStream(path), createGunzip(), sink);
  else await pipeline(createReadStream(path), sink);
  return { sha256: hash.digest('hex'), size };
}
