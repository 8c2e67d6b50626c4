/**
 * The data manifest: what a benchmark's data files are, where each comes from, and the
 * checksum that makes a copy that release. A benchmark module declares its own
 * (`BenchmarkModule.data`), so a plug-in's datasets are pulled, verified and recorded
 * like the built-in ones; `memrl data` lists the registry's.
 *
 * A file's checksum is of the bytes memrl reads: a `.gz` file's uncompressed bytes (so
 * a copy compressed by another tool is the same release), any other file's own bytes.
 */
import { isJsonObject } from '../util/json.js';

/** Parquet rows that memrl writes as JSON lines (the hub serves the release in this form). */
export interface ParquetRows {
  format: 'parquet';
  /** The columns, in the order each JSON object lists them. */
  columns: readonly string[];
}

export interface DataFile {
  /** Where it sits in a data folder (the cache, a mirror), e.g. 'llb/db_train.json'. */
  path: string;
  /** The canonical source: a release file at a fixed revision. */
  url: string;
  /** sha256 of the bytes memrl reads; null when no copy was at hand to pin it (a gated file). */
  sha256: string | null;
  /** Size of those bytes; null when unknown. */
  size: number | null;
  /** This file's release, when it is not the dataset's (a split file from another repository). */
  release?: string;
  /** The URL serves this other form; memrl converts it after the download (and checks `sha256` on the result). */
  from?: ParquetRows;
  /** A small stand-in shipped with memrl, used when no copy is present (the run says so). */
  sample?: Sample;
}

export interface Sample {
  /** From the package root. */
  path: string;
  /** What it holds, for the banner and run.json, e.g. "the main job's 100 tasks". */
  what: string;
  /** The release a run on it records, e.g. 'v0.1.0_hf (embedded sample)'. */
  release: string;
}

export interface DatasetSpec {
  /** Its name in `memrl data pull <name>`: the benchmark's. */
  name: string;
  title: string;
  /** The release these checksums are of, e.g. 'v0.1.0_hf' or 'MemTensor/MemRL@7c3beba'. */
  release: string;
  /** SPDX identifier or a short description of its terms. */
  licence: string;
  homepage: string;
  /** Set for gated sets: the page where its terms are accepted (HF_TOKEN must belong to an account that did). */
  gated?: string;
  files: readonly DataFile[];
}

/** What a BenchmarkModule declares: its dataset without the name (that is the module's). */
export type DatasetDeclaration = Omit<DatasetSpec, 'name'>;

const SHA256 = /^[0-9a-f]{64}$/;
const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Why a plug-in's declaration is not a dataset (undefined: it is one). */
export function datasetProblem(v: unknown): string | undefined {
  if (!isJsonObject(v)) return 'not an object';
  for (const key of ['title', 'release', 'licence', 'homepage'] as const) if (!isStr(v[key])) return `\`${key}\` is not a string`;
  if (!Array.isArray(v.files) || v.files.length === 0) return '`files` is not a non-empty list';
  for (const [i, f] of v.files.entries()) {
    const where = `files[${i}]`;
    if (!isJsonObject(f)) return `${where} is not an object`;
    if (!isStr(f.path) || f.path.startsWith('/') || f.path.split('/').includes('..')) return `${where}.path is not a relative path inside the data folder`;
    if (!isStr(f.url) || !/^https?:\/\//.test(f.url)) return `${where}.url is not an http(s) URL`;
    if (f.sha256 !== null && !(typeof f.sha256 === 'string' && SHA256.test(f.sha256))) return `${where}.sha256 is not 64 lowercase hex digits (or null)`;
    if (f.size !== null && !(Number.isInteger(f.size) && (f.size as number) >= 0)) return `${where}.size is not a byte count (or null)`;
  }
  return undefined;
}

/** The release a copy of `file` is. */
export function releaseOf(spec: DatasetSpec, file: DataFile): string {
  return file.release ?? spec.release;
}

/** The file of `spec` at `path` (a manifest path like 'llb/db_train.json'). */
export function fileOf(spec: DatasetSpec, path: string): DataFile {
  const f = spec.files.find((x) => x.path === path);
  if (!f) throw new Error(`dataset ${spec.name} has no file ${path} in its manifest`);
  return f;
}
