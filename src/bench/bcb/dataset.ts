/**
 * BigCodeBench tasks from a .jsonl or .jsonl.gz file, split into train/valid.
 *
 * Splits: a split file {seed, train_ratio, total, train_count, val_count,
 * train_ids, val_ids} fixes both sets and their order (the paper uses
 * full_seed123.json, 798/342, and hard_seed42.json, 103/45). Without one, ids are
 * sorted by their number, shuffled with the seed and cut at train_ratio.
 * `subset: 'hard'` keeps only the 148 ids of the hard split file.
 * `limit` keeps the first N tasks of train and, separately, of valid.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { UserError } from '../../util/errors.js';
import { Rng } from '../../util/rng.js';
import type { LoadedTasks, TaskBase } from '../../core/index.js';
import { readUserFile } from '../../util/fs-errors.js';
import { cachePath, locate, locateOrSample, samplePath } from '../../data/locations.js';
import { BCB_SAMPLE_LIMIT, bcbFile, BCB_SPLIT_FILES, BCB_TASKS_FILE } from './data-files.js';

export type BcbSubset = 'full' | 'hard';
export type BcbPromptSplit = 'instruct' | 'complete';

export interface BcbTask extends TaskBase {
  task_id: string;
  complete_prompt: string;
  instruct_prompt: string;
  canonical_solution: string;
  /** Imports, constants and the `def` line. */
  code_prompt: string;
  /** Python source defining a unittest `TestCases` class. */
  test: string;
  entry_point: string;
  /** Libraries the task uses (parsed from the dataset's Python-literal list). */
  libs: string[];
  /** JSON text describing the docstring (kept as is). */
  doc_struct: string;
}

export type BcbLoadOptions = LoadBcbOptions;

export interface LoadBcbOptions {
  /** Default: the copy in the cache, else in the mirror next to the checkout, else the embedded sample (docs/data.md). */
  dataPath?: string;
  /** A split file; default by subset (full_seed123.json / hard_seed42.json). `null`: no split file, shuffle with `seed`. */
  splitFile?: string | null;
  subset: BcbSubset;
  /** Which prompt becomes the task key: instruct_prompt or complete_prompt. */
  split: BcbPromptSplit;
  /** Used only without a split file. */
  trainRatio: number;
  /** Used only without a split file. */
  seed: number;
  /** First N train tasks and first N valid tasks (each set on its own). */
  limit?: number;
}

const DATA_HINT = '`memrl data pull bcb` fetches the BigCodeBench release into the cache, or point --data-path at a copy';

/** The tasks file a run reads when no path is given (the cache's path when there is no copy: what the error names). */
export function defaultBcbDataPath(): string {
  const tasks = bcbFile(BCB_TASKS_FILE);
  return locateOrSample(tasks)?.path ?? cachePath(tasks);
}

/** The pulled release only (cache, then mirror), never the sample: for what measures the whole set (check-gold). */
export function pulledBcbDataPath(): string {
  const tasks = bcbFile(BCB_TASKS_FILE);
  return locate(tasks)?.path ?? cachePath(tasks);
}

/** The paper's split file of a subset, from the cache or the mirror. */
export function defaultBcbSplitFile(subset: BcbSubset): string {
  const split = bcbFile(BCB_SPLIT_FILES[subset]);
  return locate(split)?.path ?? cachePath(split);
}

/** The embedded sample serves only the runs whose tasks it holds: the paper's split, the full subset, --limit ≤ its size. */
function checkSampleFits(dataPath: string, splitPath: string | null, opts: LoadBcbOptions): void {
  if (dataPath !== samplePath(bcbFile(BCB_TASKS_FILE))) return;
  const why =
    opts.subset !== 'full'
      ? `--subset ${opts.subset}`
      : splitPath !== samplePath(bcbFile(BCB_SPLIT_FILES.full))
        ? `the split ${splitPath ?? `seeded from --seed ${opts.seed}`}`
        : opts.limit === undefined || opts.limit > BCB_SAMPLE_LIMIT
          ? `${opts.limit === undefined ? 'all tasks' : `--limit ${opts.limit}`}`
          : null;
  if (why) {
    throw new UserError(
      `BigCodeBench data file not found, and memrl's embedded sample (${dataPath}) holds only the first ${BCB_SAMPLE_LIMIT} train and ${BCB_SAMPLE_LIMIT} validation tasks of the paper's split, not what ${why} needs; ${DATA_HINT}`,
      'data_missing',
    );
  }
}

const rawTaskSchema = z.object({
  task_id: z.string().min(1),
  complete_prompt: z.string(),
  instruct_prompt: z.string(),
  canonical_solution: z.string(),
  code_prompt: z.string(),
  test: z.string(),
  entry_point: z.string(),
  libs: z.union([z.string(), z.array(z.string())]),
  doc_struct: z.union([z.string(), z.record(z.unknown())]),
});

/**
 * A split file: `train_ids` and `val_ids` are all it needs; the reference's files also
 * carry seed, train_ratio, total, train_count and val_count, which are checked against
 * the lists when present.
 */
const splitFileSchema = z
  .object({
    train_ids: z.array(z.string()),
    val_ids: z.array(z.string()),
    seed: z.number().int().optional(),
    train_ratio: z.number().gt(0).lte(1).optional(),
    total: z.number().int().nonnegative().optional(),
    train_count: z.number().int().nonnegative().optional(),
    val_count: z.number().int().nonnegative().optional(),
  })
  .passthrough();
export type BcbSplitFile = z.infer<typeof splitFileSchema>;

/**
 * Parses a Python list literal of strings, e.g. "['random', 'itertools']".
 * Returns undefined when the text is not such a list.
 */
export function parsePythonStringList(text: string): string[] | undefined {
  const s = text.trim();
  if (!s.startsWith('[') || !s.endsWith(']')) return undefined;
  const items: string[] = [];
  let i = 1;
  const end = s.length - 1;
  const skipSpace = (): void => {
    while (i < end && /\s/.test(s[i] as string)) i++;
  };
  skipSpace();
  while (i < end) {
    const quote = s[i];
    if (quote !== "'" && quote !== '"') return undefined;
    i++;
    let item = '';
    while (i < end && s[i] !== quote) {
      if (s[i] === '\\' && i + 1 < end) i++;
      item += s[i];
      i++;
    }
    if (i >= end) return undefined; // unterminated string
    i++; // closing quote
    items.push(item);
    skipSpace();
    if (i < end) {
      if (s[i] !== ',') return undefined;
      i++;
      skipSpace();
    }
  }
  return items;
}

/** The number in "BigCodeBench/123" (NaN if there is none). */
function idNumber(id: string): number {
  const m = /\/(\d+)$/.exec(id);
  return m ? Number(m[1]) : Number.NaN;
}

export function compareTaskIds(a: string, b: string): number {
  const na = idNumber(a);
  const nb = idNumber(b);
  if (!Number.isNaN(na) && !Number.isNaN(nb) && na !== nb) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

function readSource(path: string, what: string, hint: string): Buffer {
  if (!existsSync(path)) throw new UserError(`${what} not found: ${path}; ${hint}`);
  return readUserFile(path, what);
}

function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** All tasks of a data file, in file order; `key` is the chosen prompt. */
export function parseBcbJsonl(raw: Buffer, path: string, split: BcbPromptSplit): BcbTask[] {
  let text: string;
  if (path.endsWith('.gz') || (raw[0] === 0x1f && raw[1] === 0x8b)) {
    try {
      text = gunzipSync(raw).toString('utf8');
    } catch (err) {
      throw new UserError(`${path}: not a valid gzip file (${(err as Error).message})`);
    }
  } else {
    text = raw.toString('utf8');
  }
  const tasks: BcbTask[] = [];
  const seen = new Set<string>();
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = (lines[n] as string).trim();
    if (!line) continue;
    const where = `${path} line ${n + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      throw new UserError(`${where}: not valid JSON (${(err as Error).message})`);
    }
    const parsed = rawTaskSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UserError(`${where}: not a BigCodeBench task (${issue?.path.join('.') || 'record'}: ${issue?.message})`);
    }
    const r = parsed.data;
    const libs = Array.isArray(r.libs) ? r.libs : parsePythonStringList(r.libs);
    if (!libs) throw new UserError(`${where}: field libs is not a list of strings: ${r.libs.slice(0, 80)}`);
    if (seen.has(r.task_id)) throw new UserError(`${where}: duplicate task_id ${r.task_id}`);
    seen.add(r.task_id);
    tasks.push({
      id: r.task_id,
      key: split === 'instruct' ? r.instruct_prompt : r.complete_prompt,
      task_id: r.task_id,
      complete_prompt: r.complete_prompt,
      instruct_prompt: r.instruct_prompt,
      canonical_solution: r.canonical_solution,
      code_prompt: r.code_prompt,
      test: r.test,
      entry_point: r.entry_point,
      libs,
      doc_struct: typeof r.doc_struct === 'string' ? r.doc_struct : JSON.stringify(r.doc_struct),
    });
  }
  if (tasks.length === 0) throw new UserError(`${path}: no tasks in the file`);
  return tasks;
}

export function parseSplitFile(raw: Buffer, path: string): BcbSplitFile {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new UserError(`split file ${path}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = splitFileSchema.safeParse(json);
  if (!parsed.success) {
    // Every problem at once, so a hand-written file is fixed in one go.
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'the file'}: ${i.message}`);
    throw new UserError(`split file ${path}: ${problems.join('; ')} (a split file is {"train_ids": [...], "val_ids": [...]}, see docs/data.md)`);
  }
  const s = parsed.data;
  if ((s.train_count !== undefined && s.train_ids.length !== s.train_count) || (s.val_count !== undefined && s.val_ids.length !== s.val_count)) {
    throw new UserError(
      `split file ${path}: train_ids/val_ids hold ${s.train_ids.length}/${s.val_ids.length} ids but train_count/val_count say ${s.train_count ?? '-'}/${s.val_count ?? '-'}`,
    );
  }
  const all = [...s.train_ids, ...s.val_ids];
  const dup = all.filter((id, i) => all.indexOf(id) !== i);
  if (dup.length > 0) throw new UserError(`split file ${path}: ids listed twice: ${[...new Set(dup)].slice(0, 5).join(', ')}`);
  return s;
}

function missingIdsError(ids: string[], splitPath: string, dataPath: string): UserError {
  const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length} in all)` : '');
  return new UserError(`split file ${splitPath} names tasks that ${dataPath} does not contain: ${shown}`);
}

/** Seeded split of ids: numeric sort, shuffle, first floor(n·ratio) for training. */
export function seededSplit(ids: string[], seed: number, trainRatio: number): { train: string[]; valid: string[] } {
  if (!(trainRatio > 0 && trainRatio <= 1)) throw new UserError(`train ratio must be in (0, 1], got ${trainRatio}`);
  const shuffled = new Rng(seed).shuffle([...ids].sort(compareTaskIds));
  const cut = Math.floor(shuffled.length * trainRatio);
  return { train: shuffled.slice(0, cut), valid: shuffled.slice(cut) };
}

/** Every task of a data file (file order) and the file's checksum. */
export function readBcbTasks(
  dataPath = defaultBcbDataPath(),
  split: BcbPromptSplit = 'instruct',
): { tasks: BcbTask[]; source: { path: string; sha256: string } } {
  const raw = readSource(dataPath, 'BigCodeBench data file', DATA_HINT);
  return { tasks: parseBcbJsonl(raw, dataPath, split), source: { path: dataPath, sha256: sha256(raw) } };
}

/** The ids of BigCodeBench-Hard (148 tasks): train ∪ val of the hard split file. */
export function readHardIds(splitPath = defaultBcbSplitFile('hard')): { ids: Set<string>; source: { path: string; sha256: string } } {
  const buf = readSource(splitPath, 'split file', 'the hard subset is defined by the ids of hard_seed42.json');
  const split = parseSplitFile(buf, splitPath);
  return { ids: new Set([...split.train_ids, ...split.val_ids]), source: { path: splitPath, sha256: sha256(buf) } };
}

/** Load and split the tasks (async to fit the Benchmark interface; the work itself is a few ms). */
export async function loadBcb(opts: LoadBcbOptions): Promise<LoadedTasks<BcbTask>> {
  if (opts.limit !== undefined && !(Number.isInteger(opts.limit) && opts.limit > 0)) {
    throw new UserError(`limit must be a positive integer, got ${opts.limit}`);
  }
  const dataPath = opts.dataPath ?? defaultBcbDataPath();
  const splitPath = opts.splitFile === undefined ? defaultBcbSplitFile(opts.subset) : opts.splitFile;
  checkSampleFits(dataPath, splitPath, opts);
  const sources: { path: string; sha256: string }[] = [];
  const { tasks, source } = readBcbTasks(dataPath, opts.split);
  sources.push(source);
  const byId = new Map(tasks.map((t) => [t.id, t]));

  const readSplit = (path: string): BcbSplitFile => {
    const buf = readSource(path, 'split file', 'pass an existing split file, or none to split with the seed');
    sources.push({ path, sha256: sha256(buf) });
    const split = parseSplitFile(buf, path);
    const missing = [...split.train_ids, ...split.val_ids].filter((id) => !byId.has(id));
    if (missing.length > 0) throw missingIdsError(missing, path, dataPath);
    return split;
  };

  let trainIds: string[];
  let validIds: string[];
  let label: string;
  if (splitPath !== null) {
    const split = readSplit(splitPath);
    trainIds = split.train_ids;
    validIds = split.val_ids;
    if (opts.subset === 'hard' && opts.splitFile !== undefined) {
      // An explicit split file with the hard subset: keep only hard ids.
      const hard = readHardIds();
      sources.push(hard.source);
      trainIds = trainIds.filter((id) => hard.ids.has(id));
      validIds = validIds.filter((id) => hard.ids.has(id));
    }
    label = `${basename(splitPath)} (${trainIds.length}/${validIds.length})`;
  } else {
    let pool = tasks.map((t) => t.id);
    if (opts.subset === 'hard') {
      const hard = readHardIds();
      sources.push(hard.source);
      const unknown = [...hard.ids].filter((id) => !byId.has(id));
      if (unknown.length > 0) throw missingIdsError(unknown, hard.source.path, dataPath);
      pool = pool.filter((id) => hard.ids.has(id));
    }
    ({ train: trainIds, valid: validIds } = seededSplit(pool, opts.seed, opts.trainRatio));
    label = `${opts.subset} seed ${opts.seed} ratio ${opts.trainRatio} (${trainIds.length}/${validIds.length})`;
  }

  if (opts.limit !== undefined) {
    trainIds = trainIds.slice(0, opts.limit);
    validIds = validIds.slice(0, opts.limit);
    label += `, limit ${opts.limit}`;
  }
  const pick = (id: string): BcbTask => byId.get(id) as BcbTask;
  return { train: trainIds.map(pick), valid: validIds.map(pick), sources, splitLabel: label };
}
