/**
 * A resumed run must read the data it started with: file by file, in the order the
 * benchmark loads them, the same bytes, or the same records (a .gz file recompressed,
 * say by a pull from the hub instead of a mirror copy). A file the run's memrl did not
 * record yet (a newer memrl records more, after the others) is not compared.
 */
import type { DataSource } from './identify.js';

/** A file as the run's run.json records it (dataset.sources). */
type Recorded = Pick<DataSource, 'path' | 'sha256' | 'contentSha256'>;

export interface DataDifference {
  /** The file read now. */
  path: string;
  /** The file the run started with, when its path differs. */
  wasPath?: string;
  was: string;
  now: string;
}

function contentOf(s: Pick<DataSource, 'sha256' | 'contentSha256'>): string {
  return s.contentSha256 ?? s.sha256;
}

/** The first file that differs from the recorded run (null: the same data). */
export function dataDifference(recorded: readonly Recorded[] | undefined, now: readonly DataSource[]): DataDifference | null {
  if (!recorded || recorded.length === 0) return null;
  for (let i = 0; i < recorded.length; i++) {
    const was = recorded[i]!;
    const cur = now[i];
    if (!cur) return { path: was.path, was: was.sha256, now: 'not read now' };
    if (was.sha256 === cur.sha256 || contentOf(was) === contentOf(cur)) continue;
    return { path: cur.path, ...(was.path !== cur.path ? { wasPath: was.path } : {}), was: was.sha256, now: cur.sha256 };
  }
  return null;
}
