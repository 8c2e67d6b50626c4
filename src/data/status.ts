/** `memrl data list` and `verify`: every file of the manifests, where its copy is, and whether it is the release. */
import { isGzipPath } from './checksum.js';
import { cachePath, originWords, samplePath } from './locations.js';
import { releaseOf, type DatasetSpec } from './manifest.js';
import { formatBytes } from './progress.js';
import { checkFile, type FileCheck } from './verify.js';

export interface FileRow extends FileCheck {
  spec: DatasetSpec;
}

type Env = Readonly<Record<string, string | undefined>>;

export async function fileRows(specs: readonly DatasetSpec[], env: Env = process.env): Promise<FileRow[]> {
  const rows: FileRow[] = [];
  for (const spec of specs) for (const file of spec.files) rows.push({ spec, ...(await checkFile(file, env)) });
  return rows;
}

const STATUS_WORDS: Record<FileRow['status'], string> = {
  present: 'present',
  unpinned: 'present, unpinned',
  corrupt: 'CORRUPT',
  missing: 'missing',
};

/** What to do about a row that is not the release, or '' for one that is. */
export function rowAdvice(row: FileRow): string {
  const pull = `memrl data pull ${row.spec.name}`;
  if (row.status === 'missing') {
    const sample = samplePath(row.file) ? `; until then runs read memrl's embedded sample (${row.file.sample!.what})` : '';
    return `${pull} fetches it${row.spec.gated ? ` (gated: accept its terms at ${row.spec.gated}, set HF_TOKEN)` : ''}${sample}`;
  }
  if (row.status === 'corrupt') {
    const where = row.located!.origin === 'cache' ? `${pull} fetches it again` : `replace ${row.located!.path} with a verified copy, or ${pull} puts one in the cache, which is read first`;
    return `sha256 ${row.actual!.sha256}, not the release's ${row.expected}: ${where}`;
  }
  return '';
}

/** `memrl data list`: per dataset its release, licence and page; per file its status, copy, size, checksum and source. */
export function formatList(rows: readonly FileRow[], env: Env = process.env): string {
  const out: string[] = [];
  let last: DatasetSpec | undefined;
  for (const row of rows) {
    if (row.spec !== last) {
      last = row.spec;
      out.push(`${row.spec.name}: ${row.spec.title} ${row.spec.release}, ${row.spec.homepage}`);
      out.push(`  licence: ${row.spec.licence}${row.spec.gated ? `; gated: accept its terms at ${row.spec.gated}` : ''}`);
    }
    const f = row.file;
    const size = row.actual ? formatBytes(row.actual.size) : f.size !== null ? formatBytes(f.size) : 'size unknown';
    out.push(`  ${STATUS_WORDS[row.status].padEnd(17)} ${f.path}  ${size}${isGzipPath(f.path) ? ' uncompressed' : ''}`);
    out.push(`      sha256   ${f.sha256 ?? `not pinned (gated; ${row.expected ? `recorded at pull: ${row.expected}` : 'recorded when pulled'})`}`);
    if (f.release) out.push(`      release  ${releaseOf(row.spec, f)}`);
    out.push(`      source   ${f.url}${f.from ? ' (Parquet, written as the release\'s JSON lines)' : ''}`);
    out.push(`      copy     ${row.located ? `${row.located.path} (${originWords(row.located.origin, env)})` : `none; pulled into ${cachePath(f, env)}`}`);
    const advice = rowAdvice(row);
    if (advice) out.push(`      to do    ${advice}`);
  }
  return out.join('\n') + '\n';
}

/** `memrl data verify`: one line per file. */
export function formatVerify(rows: readonly FileRow[]): string {
  return (
    rows
      .map((row) => {
        const head = `${STATUS_WORDS[row.status].padEnd(17)} ${row.spec.name}: ${row.file.path}`;
        const advice = rowAdvice(row);
        return row.located ? `${head}  ${row.located.path}${advice ? `: ${advice}` : ''}` : `${head}: ${advice}`;
      })
      .join('\n') + '\n'
  );
}
