import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHle, normalizeImage, readHleParquet, type HleLoadOptions } from '../../src/bench/hle/dataset.js';
import { UserError } from '../../src/util/errors.js';
import { manyRows, SNAPPY, writeHle, ZSTD } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-hle-data-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PNG_URL = /^data:image\/png;base64,iVBORw0KGgo/;
const base: HleLoadOptions = { trainPath: SNAPPY, categoryRatio: 1, datasetRatio: 1, trainValidSplit: 1, seed: 42 };
/** memrl's selection: switches hle.round-robin and hle.selection-counts at memrl. */
const MEMRL_SELECTION = { order: 'round-robin', counts: 'round' } as const;

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message.split('\n')).toHaveLength(1);
    return (err as Error).message;
  }
  throw new Error('expected a UserError');
}

describe('readHleParquet', () => {
  it('reads the snappy file (image as data-URL strings) and the zstd file (image as {bytes} structs) to the same tasks', async () => {
    const a = await readHleParquet(SNAPPY);
    const b = await readHleParquet(ZSTD);
    expect(a.tasks).toHaveLength(20);
    const strip = (t: (typeof a.tasks)[number]) => ({ ...t, imageWarning: t.imageWarning ? 'w' : undefined });
    expect(b.tasks.map(strip)).toEqual(a.tasks.map(strip));
    const phys2 = b.tasks.find((t) => t.id === 'q-phys-2')!;
    expect(phys2).toMatchObject({ answer: 'B', answerType: 'multipleChoice', category: 'Physics' });
    expect(phys2.image).toMatch(PNG_URL);
    expect(phys2.key).toBe(phys2.question);
    // Extra columns (rationale, canary, ...) are not carried into tasks.
    expect(Object.keys(phys2)).not.toContain('canary');
  });

  it('drops an undecodable image with a warning naming file and id, and keeps the question', async () => {
    for (const file of [SNAPPY, ZSTD]) {
      const t = (await readHleParquet(file)).tasks.find((x) => x.id === 'q-chem-3')!;
      expect(t.image).toBeUndefined();
      expect(t.imageWarning).toMatch(/hle_(snappy|zstd)\.parquet id q-chem-3: .*runs without it/);
      expect(t.question).toMatch(/benzene/);
    }
  });

  it('names the missing column and the file', async () => {
    const f = join(work, 'nocat.parquet');
    writeHle(f, manyRows(['Math'], 2), { drop: 'category' });
    expect(await errorOf(readHleParquet(f))).toMatch(/nocat\.parquet: column "category" is missing/);
  });

  it('treats a missing image column as no images', async () => {
    const f = join(work, 'noimage.parquet');
    writeHle(f, manyRows(['Math'], 2), { drop: 'image' });
    const { tasks } = await readHleParquet(f);
    expect(tasks.every((t) => t.image === undefined && t.imageWarning === undefined)).toBe(true);
  });

  it('names an unsupported codec', async () => {
    const f = join(work, 'lzo.parquet');
    writeHle(f, manyRows(['Math'], 2), { codec: 'LZO' });
    expect(await errorOf(readHleParquet(f))).toMatch(/lzo\.parquet: column "id" is compressed with LZO.*snappy or zstd/);
  });

  it('says a non-Parquet or truncated file is not readable, and a missing file how to get the data', async () => {
    const junk = join(work, 'junk.parquet');
    writeFileSync(junk, 'id,question\n1,hi\n');
    expect(await errorOf(readHleParquet(junk))).toMatch(/junk\.parquet: not a readable Parquet file/);
    expect(await errorOf(readHleParquet(join(work, 'missing.parquet')))).toMatch(/missing\.parquet: no such file.*--train/);
  });

  it('rejects an unknown answer_type naming row, id and column', async () => {
    const f = join(work, 'badtype.parquet');
    writeHle(f, [{ id: 'x1', question: 'q?', answer: '1', answer_type: 'freeText', category: 'Math' }]);
    expect(await errorOf(readHleParquet(f))).toMatch(/badtype\.parquet row 1 \(id x1\): column "answer_type" is "freeText"/);
  });
});

describe('normalizeImage', () => {
  it('accepts data URLs and http URLs, rejects non-images', () => {
    expect(normalizeImage('')).toEqual({});
    expect(normalizeImage(null)).toEqual({});
    expect(normalizeImage('https://example.org/a.png')).toEqual({ url: 'https://example.org/a.png' });
    expect(normalizeImage('data:application/octet-stream;base64,AAECAwQFBgcICQoL').warning).toMatch(/PNG, JPEG/);
    expect(normalizeImage({ bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0]) }).url).toMatch(/^data:image\/jpeg;base64,/);
    expect(normalizeImage('not an image').warning).toMatch(/neither/);
  });
});

describe("loadHle: memrl's selection (hle.round-robin and hle.selection-counts at memrl)", () => {
  const CATS = ['Math', 'Physics', 'Chemistry', 'Other'];
  const file = join(work, 'many.parquet');
  writeHle(file, manyRows(CATS, 10));
  const opts = { ...base, ...MEMRL_SELECTION, trainPath: file };

  it('is deterministic for a seed and changes with it', async () => {
    const a = await loadHle({ ...opts, trainValidSplit: 0.7 });
    const b = await loadHle({ ...opts, trainValidSplit: 0.7 });
    const c = await loadHle({ ...opts, trainValidSplit: 0.7, seed: 7 });
    expect(a.train.map((t) => t.id)).toEqual(b.train.map((t) => t.id));
    expect(a.valid.map((t) => t.id)).toEqual(b.valid.map((t) => t.id));
    expect(c.train.map((t) => t.id)).not.toEqual(a.train.map((t) => t.id));
  });

  it('splits each category by train_valid_split, with no overlap', async () => {
    const r = await loadHle({ ...opts, trainValidSplit: 0.7 });
    for (const cat of CATS) {
      expect(r.train.filter((t) => t.category === cat)).toHaveLength(7);
      expect(r.valid.filter((t) => t.category === cat)).toHaveLength(3);
    }
    const ids = new Set(r.train.map((t) => t.id));
    expect(r.valid.some((t) => ids.has(t.id))).toBe(false);
    const none = await loadHle(opts);
    expect(none.train).toHaveLength(40);
    expect(none.valid).toHaveLength(0);
  });

  it('filters categories case-insensitively and names an unknown one with the available list', async () => {
    const r = await loadHle({ ...opts, categories: ['math', 'Other'] });
    expect(new Set(r.train.map((t) => t.category))).toEqual(new Set(['Math', 'Other']));
    expect(await errorOf(loadHle({ ...opts, categories: ['Poetry'] }))).toMatch(/--categories Poetry: no such category.*Chemistry, Math, Other, Physics/);
  });

  it('samples category_ratio × dataset_ratio of each category', async () => {
    const r = await loadHle({ ...opts, categoryRatio: 0.5, datasetRatio: 0.6 });
    for (const cat of CATS) expect(r.train.filter((t) => t.category === cat)).toHaveLength(3);
    const tiny = await loadHle({ ...opts, categoryRatio: 0.01 });
    for (const cat of CATS) expect(tiny.train.filter((t) => t.category === cat)).toHaveLength(1);
  });

  it('caps num_train / num_valid round-robin across categories, not the first categories only', async () => {
    const r = await loadHle({ ...opts, trainValidSplit: 0.5, numTrain: 6, numValid: 4 });
    expect(r.train.map((t) => t.category)).toEqual(['Chemistry', 'Math', 'Other', 'Physics', 'Chemistry', 'Math']);
    expect(new Set(r.valid.map((t) => t.category)).size).toBe(4);
    // The capped set is a prefix of the uncapped order.
    const all = await loadHle({ ...opts, trainValidSplit: 0.5 });
    expect(r.train.map((t) => t.id)).toEqual(all.train.slice(0, 6).map((t) => t.id));
  });

  it('uses a separate valid file whole for validation and the train file whole for training', async () => {
    const vf = join(work, 'valid.parquet');
    writeHle(vf, manyRows(['Math'], 3).map((r) => ({ ...r, id: `v-${r.id}` })));
    const r = await loadHle({ ...opts, validPath: vf, trainValidSplit: 0.5 });
    expect(r.train).toHaveLength(40);
    expect(r.valid.map((t) => t.id).sort()).toEqual(['v-Math-0', 'v-Math-1', 'v-Math-2']);
    expect(r.sources).toHaveLength(2);
  });

  it('says how to get the data when no file is given', async () => {
    expect(await errorOf(loadHle({ ...opts, trainPath: null }))).toMatch(/gated.*--train/);
  });
});

describe("loadHle: the reference's selection (the default)", () => {
  const work2 = mkdtempSync(join(tmpdir(), 'memrl-hle-ref-'));
  afterAll(() => rmSync(work2, { recursive: true, force: true }));
  // File order Math, Physics, Chemistry, Other: the reference keeps it (pandas groupby sort=False).
  const CATS = ['Math', 'Physics', 'Chemistry', 'Other'];
  const file = join(work2, 'many.parquet');
  writeHle(file, manyRows(CATS, 10));
  const opts = { ...base, trainPath: file };

  it('sets are the categories one after another in file order, so caps take the first categories', async () => {
    const r = await loadHle({ ...opts, trainValidSplit: 0.5, numTrain: 6 });
    expect(r.train.map((t) => t.category)).toEqual(['Math', 'Math', 'Math', 'Math', 'Math', 'Physics']);
    const all = await loadHle({ ...opts, trainValidSplit: 0.5 });
    expect([...new Set(all.train.map((t) => t.category))]).toEqual(CATS);
    expect(r.train.map((t) => t.id)).toEqual(all.train.slice(0, 6).map((t) => t.id));
    const rr = await loadHle({ ...opts, ...MEMRL_SELECTION, trainValidSplit: 0.5, numTrain: 6 });
    expect(rr.train.map((t) => t.category)).toEqual(['Chemistry', 'Math', 'Other', 'Physics', 'Chemistry', 'Math']);
  });

  it('rounds counts down; dataset_ratio samples the whole set, category_ratio each category', async () => {
    const split = await loadHle({ ...opts, trainValidSplit: 0.75 });
    for (const cat of CATS) expect(split.train.filter((t) => t.category === cat)).toHaveLength(7); // int(7.5)
    const rounded = await loadHle({ ...opts, ...MEMRL_SELECTION, trainValidSplit: 0.75 });
    for (const cat of CATS) expect(rounded.train.filter((t) => t.category === cat)).toHaveLength(8);
    const perCategory = await loadHle({ ...opts, categoryRatio: 0.55 });
    for (const cat of CATS) expect(perCategory.train.filter((t) => t.category === cat)).toHaveLength(5); // int(5.5)
    const whole = await loadHle({ ...opts, datasetRatio: 0.55 });
    expect(whole.train).toHaveLength(22); // int(40 · 0.55), not 4 · round(5.5)
    const tiny = await loadHle({ ...opts, datasetRatio: 0.001 });
    expect(tiny.train).toHaveLength(1);
  });

  it('default categories match exactly and absent ones are skipped; named ones still must exist', async () => {
    const r = await loadHle({ ...opts, defaultCategories: ['Math', 'physics', 'Poetry'] });
    expect(new Set(r.train.map((t) => t.category))).toEqual(new Set(['Math']));
    const named = await loadHle({ ...opts, categories: ['Other'], defaultCategories: ['Math'] });
    expect(new Set(named.train.map((t) => t.category))).toEqual(new Set(['Other']));
  });
});
