/**
 * HLE questions from a Parquet file (the cais/hle schema), filtered and split.
 *
 * Reader: hyparquet + hyparquet-compressors (pure JS). The real HLE file, like most
 * Hugging Face Parquet, is often ZSTD-compressed, which parquetjs-lite cannot read.
 *
 * Selection, in this order, all seeded by `seed` (same seed, same tasks, same order):
 * 1. `categories`: keep only these (case-insensitive; an unknown name is an error
 *    listing the file's categories).
 * 2. Per category, a seeded shuffle (pandas' `sample(frac=1, random_state=seed)`,
 *    numpy's permutation reproduced), then keep round(n · categoryRatio · datasetRatio)
 *    questions (at least 1 of a non-empty category).
 * 3. Per category, the first round(kept · trainValidSplit) go to train, the rest to
 *    valid. With a separate valid file, the train file is used whole and the valid
 *    file goes through steps 1–2 on its own.
 * 4. Each set is ordered round-robin over the categories (sorted by name): one of
 *    each category in turn. So batches mix categories, and the caps `numTrain` /
 *    `numValid` (and `limit`), which keep the first N of that order, take questions
 *    from every category evenly instead of the first categories only.
 *
 * That is memrl's selection. The reference's (HLERunner._load, the default here;
 * switches hle.round-robin and hle.selection-counts) differs in two ways: counts are
 * rounded down (int(), at least 1 when sampling), and dataset_ratio samples the whole
 * set rather than each category; and the sets are the categories one after another,
 * in the order they first appear in the file, so the caps take the first categories.
 * Its draws are reproduced exactly (referenceSelection): the same questions in the
 * same order as the reference for the same seed.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parquetMetadata, parquetReadObjects, parquetSchema, type FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { UserError, errorMessage } from '../../util/errors.js';
import { pandasSample } from '../../util/python/random.js';
import type { LoadedTasks, TaskBase } from '../../core/index.js';
import { readUserFile } from '../../util/fs-errors.js';

export type HleAnswerType = 'exactMatch' | 'multipleChoice';

export interface HleTask extends TaskBase {
  question: string;
  answer: string;
  answerType: HleAnswerType;
  category: string;
  /** The question's image as a data URL (or an http(s) URL given as is). */
  image?: string;
  /** Why the question's image was dropped (it could not be decoded); recorded in every outcome row. */
  imageWarning?: string;
}

export interface HleLoadOptions {
  trainPath: string | null;
  validPath?: string | null;
  categories?: string[] | null;
  categoryRatio: number;
  datasetRatio: number;
  trainValidSplit: number;
  seed: number;
  numTrain?: number | null;
  numValid?: number | null;
  /** --limit: first N of each set (after the caps). */
  limit?: number | null;
  /**
   * Kept when `categories` is not given: names matched exactly, absent ones skipped
   * (the reference's CLI default list); null/undefined = every category.
   */
  defaultCategories?: readonly string[] | null;
  /** Set order (switch hle.round-robin): 'concatenate' (the reference, the default) or 'round-robin'. */
  order?: 'concatenate' | 'round-robin';
  /** Rounding of sampled and split counts (switch hle.selection-counts): 'floor' (the reference, the default) or 'round'. */
  counts?: 'floor' | 'round';
}

export const REQUIRED_COLUMNS = ['id', 'question', 'answer', 'answer_type', 'category'] as const;
const ANSWER_TYPES: readonly HleAnswerType[] = ['exactMatch', 'multipleChoice'];
const SUPPORTED_CODECS = new Set(['UNCOMPRESSED', ...Object.keys(compressors)]);

const DATA_HINT =
  "HLE is gated: accept the terms of cais/hle on the Hugging Face hub, set HF_TOKEN, then `memrl data pull hle` fetches it (or pass a copy with --train <file>); to try the pipeline offline, run with the sim model, which reads memrl's fixture (test/fixtures/hle/hle_snappy.parquet)";

/** Reads one HLE Parquet file into tasks, in file order. Bad input → UserError naming file and column. */
export async function readHleParquet(path: string): Promise<{ tasks: HleTask[]; sha256: string }> {
  if (!existsSync(path)) throw new UserError(`${path}: no such file; ${DATA_HINT}`);
  const bytes = readUserFile(path, 'the HLE questions (--train)');
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const name = basename(path);

  let meta: FileMetaData;
  try {
    meta = parquetMetadata(file);
  } catch (err) {
    throw new UserError(`${path}: not a readable Parquet file (${errorMessage(err)}); give the HLE test split as .parquet`);
  }
  const columns = parquetSchema(meta).children.map((c) => c.element.name);
  for (const col of REQUIRED_COLUMNS) {
    if (!columns.includes(col)) {
      throw new UserError(`${path}: column "${col}" is missing (found: ${columns.join(', ')}); the file must have the cais/hle columns ${REQUIRED_COLUMNS.join(', ')}`);
    }
  }
  for (const rg of meta.row_groups) {
    for (const cc of rg.columns) {
      const codec = cc.meta_data?.codec;
      if (codec && !SUPPORTED_CODECS.has(codec)) {
        throw new UserError(
          `${path}: column "${cc.meta_data?.path_in_schema.join('.')}" is compressed with ${codec}, which memrl cannot decompress (supported: ${[...SUPPORTED_CODECS].join(', ')}); rewrite the file with snappy or zstd`,
        );
      }
    }
  }

  const wanted = [...REQUIRED_COLUMNS, ...(columns.includes('image') ? ['image'] : [])];
  let rows: Record<string, unknown>[];
  try {
    // utf8 false: keep un-annotated byte arrays (image bytes) as bytes; UTF8 columns still decode to strings.
    rows = (await parquetReadObjects({ file, compressors, columns: wanted, utf8: false })) as Record<string, unknown>[];
  } catch (err) {
    throw new UserError(`${path}: cannot read the Parquet data (${errorMessage(err)}); the file may be truncated or corrupt`);
  }

  const tasks = rows.map((row, i): HleTask => {
    const where = `${path} row ${i + 1}`;
    const text = (col: string): string => {
      const v = row[col];
      if (typeof v === 'string') return v;
      if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
      if (typeof v === 'number' || typeof v === 'bigint') return String(v);
      throw new UserError(`${where}: column "${col}" is ${v === null || v === undefined ? 'empty' : typeof v}; every question needs ${REQUIRED_COLUMNS.join(', ')}`);
    };
    const id = text('id');
    const answerType = text('answer_type');
    if (!ANSWER_TYPES.includes(answerType as HleAnswerType)) {
      throw new UserError(`${where} (id ${id}): column "answer_type" is "${answerType}"; expected exactMatch or multipleChoice`);
    }
    const question = text('question');
    const image = normalizeImage(row.image);
    return {
      id,
      key: question,
      question,
      answer: text('answer'),
      answerType: answerType as HleAnswerType,
      category: text('category'),
      ...(image.url ? { image: image.url } : {}),
      ...(image.warning ? { imageWarning: `${name} id ${id}: ${image.warning}; the question runs without it` } : {}),
    };
  });
  const seen = new Set<string>();
  for (const t of tasks) {
    if (seen.has(t.id)) throw new UserError(`${path}: id "${t.id}" appears twice in column "id"; ids must be unique`);
    seen.add(t.id);
  }
  return { tasks, sha256: createHash('sha256').update(bytes).digest('hex') };
}

const MAGIC: { mime: string; test: (b: Uint8Array) => boolean }[] = [
  { mime: 'image/png', test: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 },
  { mime: 'image/jpeg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { mime: 'image/gif', test: (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38 },
  {
    mime: 'image/webp',
    test: (b) => b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50,
  },
];

function sniff(bytes: Uint8Array): string | undefined {
  return MAGIC.find((m) => bytes.length >= 12 && m.test(bytes))?.mime ?? (bytes.length >= 4 ? MAGIC.find((m) => m.mime !== 'image/webp' && m.test(bytes))?.mime : undefined);
}

/**
 * The `image` cell → a URL for an `image_url` part. Accepted: '' / null (no image),
 * a base64 data URL of PNG/JPEG/GIF/WebP bytes, an http(s) URL, or a struct with
 * `bytes` (the Hugging Face Image feature). Anything else is dropped with a warning.
 */
export function normalizeImage(cell: unknown): { url?: string; warning?: string } {
  if (cell === null || cell === undefined || cell === '') return {};
  if (typeof cell === 'string') {
    const s = cell.trim();
    if (s === '') return {};
    if (/^https?:\/\//i.test(s)) return { url: s };
    const m = /^data:([^;,]*)((?:;[^;,]*)*?);base64,(.*)$/is.exec(s);
    if (!m) return { warning: 'image is neither a base64 data URL nor an http(s) URL' };
    const payload = (m[3] ?? '').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(payload) || payload.length % 4 === 1) return { warning: 'image data URL holds invalid base64' };
    const bytes = new Uint8Array(Buffer.from(payload, 'base64'));
    const mime = sniff(bytes);
    if (!mime) return { warning: 'image data URL does not hold PNG, JPEG, GIF or WebP bytes' };
    return { url: `data:${mime};base64,${payload}` };
  }
  if (typeof cell === 'object') {
    const raw = (cell as { bytes?: unknown }).bytes;
    if (raw === null || raw === undefined) {
      const path = (cell as { path?: unknown }).path;
      return typeof path === 'string' && path ? { warning: `image struct has no bytes (only path ${path})` } : {};
    }
    const bytes = raw instanceof Uint8Array ? raw : typeof raw === 'string' ? new Uint8Array(Buffer.from(raw, 'latin1')) : undefined;
    if (!bytes) return { warning: 'image struct field "bytes" is not binary' };
    const mime = sniff(bytes);
    if (!mime) return { warning: 'image bytes are not PNG, JPEG, GIF or WebP' };
    return { url: `data:${mime};base64,${Buffer.from(bytes).toString('base64')}` };
  }
  return { warning: `image cell of type ${typeof cell} is not supported` };
}

/**
 * Category groups, each filtered by `categories` (case-insensitive; an unknown name is
 * an error) or else by `defaults` (exact; absent names skipped). In name order for
 * round-robin sets, else in the order categories first appear in the file.
 */
function groupByCategory(
  tasks: HleTask[],
  categories: string[] | null | undefined,
  path: string,
  defaults: readonly string[] | null | undefined,
  byName: boolean,
): Map<string, HleTask[]> {
  const groups = new Map<string, HleTask[]>();
  for (const t of tasks) {
    const g = groups.get(t.category);
    if (g) g.push(t);
    else groups.set(t.category, [t]);
  }
  const inFileOrder = [...groups.keys()];
  let names = byName ? [...inFileOrder].sort() : inFileOrder;
  if (!(categories && categories.length > 0) && defaults) names = names.filter((n) => defaults.includes(n));
  if (categories && categories.length > 0) {
    const byLower = new Map(names.map((n) => [n.toLowerCase(), n]));
    const picked: string[] = [];
    for (const c of categories) {
      const hit = byLower.get(c.trim().toLowerCase());
      if (!hit) throw new UserError(`--categories ${c}: no such category in ${path} (it has: ${names.join(', ')})`);
      if (!picked.includes(hit)) picked.push(hit);
    }
    names = names.filter((n) => picked.includes(n));
  }
  return new Map(names.map((n) => [n, groups.get(n) as HleTask[]]));
}

/** memrl's counts: per category, round(n · ratio) (at least 1) of its pandas-shuffled questions. */
function sample(groups: Map<string, HleTask[]>, ratio: number, seed: number): Map<string, HleTask[]> {
  const out = new Map<string, HleTask[]>();
  for (const [cat, tasks] of groups) {
    const keep = ratio >= 1 ? tasks.length : Math.max(1, Math.round(tasks.length * ratio));
    out.set(cat, pandasSample(tasks, keep, seed));
  }
  return out;
}

/** Groups in order of first appearance, each in row order (pandas groupby with sort=False). */
function byFirstAppearance(rows: readonly HleTask[]): Map<string, HleTask[]> {
  const groups = new Map<string, HleTask[]>();
  for (const t of rows) {
    const g = groups.get(t.category);
    if (g) g.push(t);
    else groups.set(t.category, [t]);
  }
  return groups;
}

/**
 * The reference's selection, draws included (HLERunner._filter_by_category,
 * _apply_dataset_ratio, _load), from the kept categories' questions in file order:
 * with 0 < categoryRatio < 1, each category (groupby sorts them by name) keeps a
 * pandas sample of int(n · ratio), at least 1; with 0 < datasetRatio < 1, the whole
 * set keeps a pandas sample of int(n · ratio), at least 1; then each category, in order
 * of first appearance, is shuffled whole (`sample(frac=1)`). Every sample is a fresh
 * RandomState(seed), as pandas draws it.
 */
function referenceSelection(rows: readonly HleTask[], categoryRatio: number, datasetRatio: number, seed: number): Map<string, HleTask[]> {
  let kept = [...rows];
  if (categoryRatio > 0 && categoryRatio < 1) {
    const groups = byFirstAppearance(kept);
    kept = [...groups.keys()].sort().flatMap((cat) => {
      const g = groups.get(cat) as HleTask[];
      return pandasSample(g, Math.max(1, Math.floor(g.length * categoryRatio)), seed);
    });
  }
  if (datasetRatio > 0 && datasetRatio < 1) {
    const n = Math.max(1, Math.floor(kept.length * datasetRatio));
    if (n < kept.length) kept = pandasSample(kept, n, seed);
  }
  const out = new Map<string, HleTask[]>();
  for (const [cat, g] of byFirstAppearance(kept)) out.set(cat, pandasSample(g, g.length, seed));
  return out;
}

/** One of each category in turn (categories in name order), until all are used. */
export function roundRobin(groups: Map<string, HleTask[]>): HleTask[] {
  const lists = [...groups.values()];
  const out: HleTask[] = [];
  for (let i = 0; out.length < lists.reduce((n, l) => n + l.length, 0); i++) {
    for (const l of lists) if (i < l.length) out.push(l[i] as HleTask);
  }
  return out;
}

function cap(tasks: HleTask[], ...limits: (number | null | undefined)[]): HleTask[] {
  const n = Math.min(...limits.map((l) => l ?? Infinity));
  return Number.isFinite(n) ? tasks.slice(0, n) : tasks;
}

export async function loadHle(opts: HleLoadOptions): Promise<LoadedTasks<HleTask>> {
  if (!opts.trainPath) throw new UserError(`no HLE data given, none pulled; ${DATA_HINT}`, 'data_missing');
  const roundRobinOrder = opts.order === 'round-robin';
  const floor = opts.counts !== 'round';
  const pick = (tasks: HleTask[], path: string): Map<string, HleTask[]> => {
    const groups = groupByCategory(tasks, opts.categories, path, opts.defaultCategories, roundRobinOrder);
    if (!floor) return sample(groups, opts.categoryRatio * opts.datasetRatio, opts.seed);
    const picked = referenceSelection(
      tasks.filter((t) => groups.has(t.category)),
      opts.categoryRatio,
      opts.datasetRatio,
      opts.seed,
    );
    // Round-robin sets take the categories by name.
    return roundRobinOrder ? new Map([...picked].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : picked;
  };
  const ordered = (groups: Map<string, HleTask[]>): HleTask[] => (roundRobinOrder ? roundRobin(groups) : [...groups.values()].flat());
  const train = await readHleParquet(opts.trainPath);
  const sources = [{ path: opts.trainPath, sha256: train.sha256 }];
  const trainGroups = pick(train.tasks, opts.trainPath);

  let trainSplit = new Map<string, HleTask[]>();
  let validSplit = new Map<string, HleTask[]>();
  let label: string;
  if (opts.validPath) {
    const valid = await readHleParquet(opts.validPath);
    sources.push({ path: opts.validPath, sha256: valid.sha256 });
    trainSplit = trainGroups;
    validSplit = pick(valid.tasks, opts.validPath);
    label = `${basename(opts.trainPath)} + ${basename(opts.validPath)}`;
  } else {
    for (const [cat, tasks] of trainGroups) {
      const nTrain = (floor ? Math.floor : Math.round)(tasks.length * opts.trainValidSplit);
      trainSplit.set(cat, tasks.slice(0, nTrain));
      validSplit.set(cat, tasks.slice(nTrain));
    }
    label = `${basename(opts.trainPath)}, per-category split ${opts.trainValidSplit}`;
  }
  const trainTasks = cap(ordered(trainSplit), opts.numTrain, opts.limit);
  const validTasks = cap(ordered(validSplit), opts.numValid, opts.limit);
  const cats = [...trainGroups.keys()];
  label += `, ${cats.length} categor${cats.length === 1 ? 'y' : 'ies'}, seed ${opts.seed} (${trainTasks.length}/${validTasks.length})`;
  return { train: trainTasks, valid: validTasks, sources, splitLabel: label };
}
