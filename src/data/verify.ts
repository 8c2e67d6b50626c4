/**
 * Is a copy the release? Its checksum (checksum.ts) against the manifest's. A file the
 * manifest could not pin (a gated set) is checked against the checksum recorded beside
 * it when it was pulled (`<file>.sha256`, sha256sum's format).
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { writeFileAtomic } from '../util/fs.js';
import { contentChecksum, isGzipPath, type Checksum } from './checksum.js';
import { locate, type Located } from './locations.js';
import type { DataFile } from './manifest.js';

/** present: the release; unpinned: present, and as pulled (no pinned checksum); corrupt: other bytes; missing: no copy. */
export type FileStatus = 'present' | 'unpinned' | 'corrupt' | 'missing';

export interface FileCheck {
  file: DataFile;
  located: Located | null;
  status: FileStatus;
  actual?: Checksum;
  /** What the copy should hash to (the manifest's, or the one recorded at pull). */
  expected: string | null;
}

export function recordedChecksumPath(path: string): string {
  return `${path}.sha256`;
}

/** The checksum recorded beside an unpinned file when it was pulled. */
export function recordedChecksum(path: string): string | null {
  const side = recordedChecksumPath(path);
  if (!existsSync(side)) return null;
  return /^([0-9a-f]{64})\b/.exec(readFileSync(side, 'utf8'))?.[1] ?? null;
}

export function recordChecksum(path: string, sha256: string): void {
  writeFileAtomic(recordedChecksumPath(path), `${sha256}  ${basename(path)}\n`);
}

/** The status of the copy at `path` (as a copy of `file`; a temporary name is hashed as the file's); `recordedAt`: where an unpinned file's checksum is recorded. */
export async function checkCopy(file: DataFile, path: string, recordedAt = path): Promise<Omit<FileCheck, 'file' | 'located'>> {
  const actual = await contentChecksum(path, isGzipPath(file.path));
  const expected = file.sha256 ?? recordedChecksum(recordedAt);
  if (expected === null) return { status: 'unpinned', actual, expected };
  if (actual.sha256 !== expected) return { status: 'corrupt', actual, expected };
  return { status: file.sha256 ? 'present' : 'unpinned', actual, expected };
}

/** The copy a run would read (cache, then the mirror) and its status. */
export async function checkFile(file: DataFile, env: Readonly<Record<string, string | undefined>> = process.env): Promise<FileCheck> {
  const located = locate(file, env);
  if (!located) return { file, located, status: 'missing', expected: file.sha256 };
  return { file, located, ...(await checkCopy(file, located.path)) };
}
