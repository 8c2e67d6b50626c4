/**
 * Which release a run read: each file a benchmark loaded, matched to the manifests by
 * its checksum, with where it came from (cache, mirror, embedded sample, a given path).
 * run.json records it per file; the banner prints it; `--resume` compares it.
 */
import { existsSync } from 'node:fs';
import { errorMessage } from '../util/errors.js';
import { contentChecksum, isGzipPath } from './checksum.js';
import { originOf, originWords, samplePath, type DataOrigin } from './locations.js';
import { releaseOf, type DataFile, type DatasetSpec } from './manifest.js';
import { recordedChecksum } from './verify.js';

/** A file a run read, as run.json's dataset.sources records it. */
export interface DataSource {
  path: string;
  /** sha256 of the file's bytes (what workers and older runs compare). */
  sha256: string;
  /** sha256 of what memrl read from it, when that differs (a .gz file: its uncompressed bytes). */
  contentSha256?: string;
  /** The manifest's dataset and file it is a copy of. */
  dataset?: string;
  file?: string;
  /** The release it matches; null for a file at a manifest's place whose bytes are not that release. */
  release?: string | null;
  url?: string;
  origin?: DataOrigin;
  /** Set for an embedded sample: what it holds. */
  sample?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

function byPlace(specs: readonly DatasetSpec[], path: string): { spec: DatasetSpec; file: DataFile } | undefined {
  for (const spec of specs) for (const file of spec.files) if (path.endsWith(`/${file.path}`)) return { spec, file };
  return undefined;
}

/** One loaded file described against the manifests. */
export async function describeSource(src: { path: string; sha256: string }, specs: readonly DatasetSpec[], env: Env = process.env): Promise<DataSource> {
  // A benchmark's own record that is no file (a generated game list) is kept as it is.
  if (!existsSync(src.path)) return { ...src };
  let content = src.sha256;
  if (isGzipPath(src.path)) {
    try {
      content = (await contentChecksum(src.path)).sha256;
    } catch (err) {
      throw new Error(`cannot hash ${src.path} again after loading it (${errorMessage(err)})`);
    }
  }
  const out: DataSource = { ...src, ...(content !== src.sha256 ? { contentSha256: content } : {}) };
  for (const spec of specs) {
    for (const file of spec.files) {
      const sample = samplePath(file);
      if (sample && originOf(src.path, sample, env) === 'sample') {
        return { ...out, dataset: spec.name, file: file.path, release: file.sample!.release, url: file.url, origin: 'sample', sample: file.sample!.what };
      }
      if (file.sha256 === content) return { ...out, dataset: spec.name, file: file.path, release: releaseOf(spec, file), url: file.url, origin: originOf(src.path, null, env) };
    }
  }
  // Not a pinned release: a gated file as pulled, a file at a manifest place with other bytes, or the user's own file.
  const place = byPlace(specs, src.path);
  const origin = originOf(src.path, null, env);
  if (place && origin !== 'given') {
    const asPulled = place.file.sha256 === null && recordedChecksum(src.path) === content;
    return { ...out, dataset: place.spec.name, file: place.file.path, release: asPulled ? `${releaseOf(place.spec, place.file)} (unpinned)` : null, url: place.file.url, origin };
  }
  return { ...out, origin };
}

export function describeSources(sources: readonly { path: string; sha256: string }[], specs: readonly DatasetSpec[], env: Env = process.env): Promise<DataSource[]> {
  return Promise.all(sources.map((s) => describeSource(s, specs, env)));
}

/** Where files are: their common folder, or the one path. */
function placeOf(paths: readonly string[]): string {
  if (paths.length === 1) return paths[0]!;
  const parts = paths.map((p) => p.split('/'));
  const common: string[] = [];
  for (let i = 0; parts.every((p) => p[i] !== undefined && p[i] === parts[0]![i]); i++) common.push(parts[0]![i]!);
  return common.join('/') || '/';
}

/**
 * The banner's lines: one per dataset and origin (the release's files of one copy say it
 * once), one per file that is not a pinned release, and a benchmark's own records.
 */
export function sourceLines(sources: readonly DataSource[], specs: readonly DatasetSpec[], env: Env = process.env): string[] {
  const lines: string[] = [];
  const groups = new Map<string, DataSource[]>();
  for (const s of sources) {
    if (!s.origin) lines.push(`${s.path}: sha256 ${s.sha256}`);
    else if (!s.dataset || (!s.release && s.origin !== 'sample')) {
      const spec = specs.find((x) => x.name === s.dataset);
      const what = spec ? `not ${spec.title}'s pinned release (sha256 ${s.contentSha256 ?? s.sha256})` : `sha256 ${s.sha256}`;
      lines.push(`${s.file ?? s.path}: ${what}, from ${originWords(s.origin, env)}: ${s.path}`);
    } else {
      const key = `${s.dataset}\u0000${s.origin}`;
      groups.set(key, [...(groups.get(key) ?? []), s]);
    }
  }
  for (const group of groups.values()) {
    const first = group[0]!;
    const title = specs.find((x) => x.name === first.dataset)?.title ?? first.dataset;
    const where = placeOf(group.map((s) => s.path));
    if (first.origin === 'sample') {
      lines.push(`${title}: ${originWords('sample', env)}, ${first.sample} (${where}); memrl data pull ${first.dataset} fetches the full set`);
    } else {
      lines.push(`${title} ${[...new Set(group.map((s) => s.release))].join(', ')}, from ${originWords(first.origin!, env)}: ${where}`);
    }
  }
  return lines;
}
