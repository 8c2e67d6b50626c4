/**
 * `memrl view` in headless Chromium (Debian's chromium through playwright-core), on runs
 * made by the real CLI: the runs list, a run's grid, an episode's transcript and
 * memories exactly as recorded, two runs side by side, a memory's page, a run from an
 * older memrl, and the one-line failures (a port in use, a folder with no runs). Also
 * what a reader relies on to read it: a legend for the grid's colours, no page wider
 * than a 1400 px window, chips at WCAG AA contrast (from the computed styles).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOME_STATUSES } from '../../src/metrics/outcome-row.js';
import { readTranscripts } from '../../src/core/run-files/transcripts.js';
import { assertBuilt, MEMRL_BIN, runMemrl } from '../helpers/cli.js';
import { IN_CI } from '../helpers/require-engine.js';
import { tempDir } from '../helpers/temp.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const work = tempDir('memrl-view-');
const shots = tempDir('memrl-view-shots-');

interface Row {
  taskId: string;
  taskIndex: number;
  epoch: number;
  phase: string;
  status: string;
  success: boolean;
  retrievedIds: string[];
  retrievedQ?: number[];
  retrievedSim?: number[];
  memoryId?: string;
  extra?: { transcriptId?: string };
}
const rowsOf = (dir: string): Row[] => readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);

/** WCAG 2 contrast ratio of two computed CSS colours (`rgb(r, g, b)` / `rgba(r, g, b, 1)`). */
function contrast(fg: string, bg: string): number {
  const lum = (c: string): number => {
    const [r, g, b, a = 1] = c.match(/[\d.]+/g)!.map(Number);
    if (a !== 1) throw new Error(`${c} is not opaque: a chip needs its own background`);
    const lin = (v: number): number => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
  };
  const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
const colours = (loc: ReturnType<Page['locator']>): Promise<{ text: string; fg: string; bg: string }[]> =>
  loc.evaluateAll((els) => els.map((e) => ({ text: e.textContent ?? '', fg: getComputedStyle(e).color, bg: getComputedStyle(e).backgroundColor })));

let server: ChildProcess;
let url = '';
let browser: Browser | undefined;
let page: Page;
const requests: string[] = [];
const errors: string[] = [];
let memrlDir = '';
let noneDir = '';

/** From the runs list, tick the memrl and none runs and open their comparison. */
async function openCompare(): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('#runs tbody tr');
  await page.locator('#runs tbody tr', { hasText: 'memrl · bcb · s4' }).first().locator('input').check();
  await page.locator('#runs tbody tr', { hasText: 'none · bcb · s4' }).locator('input').check();
  await page.click('#compare-link');
  await page.waitForSelector('#compare-summary');
}

function startView(args: string[]): Promise<{ child: ChildProcess; url: string | null; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MEMRL_BIN, 'view', ...args], { cwd: work });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /memrl view: (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]!, stderr: err, code: null });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => resolve({ child, url: null, stderr: err, code }));
  });
}

describe.skipIf(!haveChromium && !IN_CI)('memrl view in headless Chromium', () => {
  beforeAll(async () => {
    if (!haveChromium) throw new Error(`CI=true but ${CHROMIUM} is missing: bash scripts/setup.sh browser`);
    assertBuilt();
    for (const method of ['memrl', 'none']) {
      const r = await runMemrl(['run', 'bcb', '--method', method, '--limit', '6', '--epochs', '3', '--seed', '4', '--output-dir', 'runs'], { cwd: work });
      if (r.code !== 0) throw new Error(r.stderr);
    }
    const bcb = join(work, 'runs', 'bcb');
    memrlDir = join(bcb, readdirSync(bcb).find((d) => d.includes('-memrl-'))!);
    noneDir = join(bcb, readdirSync(bcb).find((d) => d.includes('-none-'))!);
    // A run as an older memrl left it: no transcripts, no Q history.
    const old = join(work, 'runs', 'old', 'bcb', 'old-run');
    mkdirSync(join(work, 'runs', 'old', 'bcb'), { recursive: true });
    cpSync(memrlDir, old, { recursive: true });
    for (const f of ['transcripts.jsonl.gz', 'transcript-parts.jsonl.gz', 'q-history.jsonl']) rmSync(join(old, f));
    const v = await startView([join(work, 'runs'), '--port', '0']);
    if (!v.url) throw new Error(`memrl view did not start: ${v.stderr}`);
    server = v.child;
    url = v.url;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    server?.kill('SIGTERM');
  });

  it('lists the runs, and says which ones an older memrl made', async () => {
    await page.goto(url);
    await page.waitForSelector('#runs tbody tr');
    expect(await page.locator('#runs tbody tr').count()).toBe(3);
    expect(await page.locator('#runs tbody tr', { hasText: 'old-run' }).textContent()).toContain('no transcripts, Q history (older memrl)');
    await page.screenshot({ path: join(shots, 'runs.png') });
  });

  it('opens a run: one grid row per task, one cell per epoch, coloured by status', async () => {
    await page.click('#runs a:text("memrl · bcb · s4")');
    await page.waitForSelector('#grid a.cell');
    const rows = rowsOf(memrlDir);
    expect(await page.locator('#grid .gridrow').count()).toBe(6);
    const first = rows.filter((r) => r.taskIndex === 0).sort((a, b) => a.epoch - b.epoch);
    const classes = await page.locator('#grid .gridrow').first().locator('a.cell').evaluateAll((els) => els.map((e) => e.className));
    expect(classes).toEqual(first.map((r) => `cell ${r.status}`));
    await page.click('#flips');
    const flipped = new Set(rows.map((r) => r.taskId).filter((t) => {
      const s = rows.filter((r) => r.taskId === t).sort((a, b) => a.epoch - b.epoch).map((r) => r.success);
      return s.some((x, i) => i > 0 && x !== s[i - 1]);
    }));
    expect(await page.locator('#grid .gridrow').count()).toBe(flipped.size);
    await page.click('#flips');
    // The run's manifest, as run.json records it.
    const manifest = JSON.parse((await page.locator('#manifest pre').textContent())!) as { method: string; seed: number };
    expect(manifest).toMatchObject({ method: 'memrl', seed: 4 });
    await page.screenshot({ path: join(shots, 'grid.png') });
  });

  it('clicking a cell shows the episode: the transcript as recorded, its memories and the memory it wrote', async () => {
    const row = rowsOf(memrlDir).find((r) => r.epoch === 2 && r.retrievedIds.length > 0)!;
    await page.locator(`#grid .gridrow[data-task="${row.taskId}"] a.cell`).nth(1).click();
    await page.waitForSelector('#transcript');
    const t = readTranscripts(memrlDir).find((x) => x.id === row.extra!.transcriptId)!;
    const shown = await page.locator('#transcript pre').allTextContents();
    expect(shown[0]).toBe(t.calls[0]!.messages[0]!.content);
    expect(shown.at(-1)).toBe(t.calls.at(-1)!.reply);
    expect(await page.locator('#injected tbody tr').count()).toBe(row.retrievedIds.length);
    expect(await page.locator('#injected tbody tr td:first-child').allTextContents()).toEqual(row.retrievedIds);
    // The Q update this episode made to each memory it used, and the memory writer's call after the agent's.
    const fmt3 = (x: number): string => x.toFixed(3);
    expect(await page.locator('#injected td.q-update').allTextContents()).toEqual(row.retrievedIds.map((id) => {
      const u = t.qUpdates!.find((x) => x.memoryId === id)!;
      return `${fmt3(u.before)} → ${fmt3(u.after)}`;
    }));
    const labels = await page.locator('#transcript > p.role').allTextContents();
    expect(labels[0]).toMatch(/^call 1: agent/);
    expect(labels.at(-1)).toMatch(/^call \d+: memory method: \S+/);
    const memories = new Map(readFileSync(join(memrlDir, 'memories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; content: string }).map((m) => [m.id, m.content]));
    expect(await page.locator('#written').textContent()).toBe(memories.get(row.memoryId!));
    // What the tests said, as the evaluator reported it.
    const evaluation = JSON.parse((await page.locator('#evaluation').textContent())!) as { evaluatorOutput: unknown };
    expect(evaluation.evaluatorOutput).toEqual(t.evaluatorOutput);
    expect(t.evaluatorOutput).toMatchObject({ testsRun: expect.any(Number) });
    await page.screenshot({ path: join(shots, 'episode.png') });
    // The memory's page: Q after each epoch it existed, every episode that used it.
    await page.locator('#injected tbody tr td:first-child a').first().click();
    await page.waitForSelector('#uses');
    const id = row.retrievedIds[0]!;
    const uses = rowsOf(memrlDir).filter((r) => r.retrievedIds.includes(id));
    expect(await page.locator('#uses tbody tr').count()).toBe(uses.length);
    // Q after each use's own update, from its transcript: the memory's Q step by step.
    const transcripts = new Map(readTranscripts(memrlDir).map((x) => [x.id, x]));
    expect(await page.locator('#uses td.q-after').allTextContents()).toEqual(
      uses.map((u) => {
        const up = transcripts.get(u.extra!.transcriptId as string)?.qUpdates?.find((x) => x.memoryId === id);
        return up ? up.after.toFixed(3) : '–';
      }),
    );
    expect(uses.some((u) => u.phase === 'train')).toBe(true);
    const history = readFileSync(join(memrlDir, 'q-history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { ids: string[] });
    expect(await page.locator('#q-over-time th').count()).toBe(history.filter((h) => h.ids.includes(id)).length);
  });

  it('compares two runs on their shared tasks: which flipped, and the memories each used', async () => {
    await openCompare();
    const last = (dir: string): Map<string, boolean> => new Map(rowsOf(dir).filter((r) => r.epoch === 3).map((r) => [r.taskId, r.success]));
    const [a, b] = [last(memrlDir), last(noneDir)];
    const onlyA = [...a].filter(([t, s]) => s && !b.get(t)).length;
    const onlyB = [...a].filter(([t, s]) => !s && b.get(t)).length;
    expect(await page.locator('#compare-summary').textContent()).toContain(`6 shared training tasks at each run's last epoch: ${onlyA} solved only by memrl · bcb · s4, ${onlyB} only by none · bcb · s4`);
    expect(await page.locator('#compare tbody tr').count()).toBe(onlyA + onlyB);
    await page.screenshot({ path: join(shots, 'compare.png') });
  });

  it('a run from an older memrl: the episode shows what exists and says the transcript is missing', async () => {
    await page.goto(url);
    await page.waitForSelector('#runs tbody tr');
    await page.locator('#runs tbody tr', { hasText: 'old-run' }).locator('a').click();
    await page.waitForSelector('#grid a.cell');
    expect(await page.locator('.banner').first().textContent()).toMatch(/did not record transcripts or Q history/);
    await page.locator('#grid a.cell').first().click();
    await page.waitForSelector('#evaluation');
    expect(await page.locator('.banner').first().textContent()).toMatch(/no transcripts: this run was made by a memrl that did not record them/);
  });

  it('the grid has a legend naming every status colour, with how many episodes have it', async () => {
    await page.goto(`${url}#/`);
    await page.waitForSelector('#runs tbody tr');
    await page.click('#runs a:text("memrl · bcb · s4")');
    await page.waitForSelector('#legend');
    const rows = rowsOf(memrlDir);
    const swatches: string[] = [];
    for (const status of OUTCOME_STATUSES) {
      const item = page.locator(`#legend [data-status="${status}"]`);
      expect(await item.textContent()).toMatch(new RegExp(`^${status} .*\\(${rows.filter((r) => r.status === status).length}\\)$`));
      swatches.push(await item.locator('.swatch').evaluate((e) => getComputedStyle(e).backgroundColor));
    }
    // One colour per status, and the colour a status has in the legend is the one its grid cells have.
    expect(new Set(swatches).size).toBe(OUTCOME_STATUSES.length);
    const present = [...new Set(rows.map((r) => r.status))];
    expect(present.length).toBeGreaterThan(1);
    for (const status of present) {
      const cell = await page.locator(`#grid a.cell.${status}`).first().evaluate((e) => getComputedStyle(e).backgroundColor);
      expect(cell, status).toBe(swatches[OUTCOME_STATUSES.indexOf(status as (typeof OUTCOME_STATUSES)[number])]);
    }
    // The memory counts written on the cells are readable on every status colour.
    for (const c of await colours(page.locator('#grid a.cell:not(:empty)'))) expect(contrast(c.fg, c.bg), `${c.text} on ${c.bg}`).toBeGreaterThanOrEqual(4.5);
  });

  it('at 1400 px no page is wider than the window, however long the memory written', async () => {
    const wide = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    const widthOf = async (hash: string, selector: string): Promise<number> => {
      await wide.goto(`${url}${hash}`);
      await wide.waitForSelector(selector);
      return wide.evaluate(() => document.documentElement.scrollWidth);
    };
    const runs = await (async () => {
      await wide.goto(url);
      await wide.waitForSelector('#runs tbody tr');
      return wide.locator('#runs tbody tr td:nth-child(2)').allTextContents();
    })();
    const [m, o] = [runs.indexOf('memrl · bcb · s4'), runs.indexOf('none · bcb · s4')];
    const memories = new Map(readFileSync(join(memrlDir, 'memories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; content: string }).map((x) => [x.id, x.content]));
    // The episode whose written memory has the longest line: at 13 px monospace, over 200 characters cannot fit in 1400 px unwrapped.
    const longest = (id: string | undefined): number => Math.max(0, ...(memories.get(id ?? '') ?? '').split('\n').map((l) => l.length));
    const row = rowsOf(memrlDir).filter((r) => r.memoryId).sort((a, b) => longest(b.memoryId) - longest(a.memoryId))[0]!;
    expect(longest(row.memoryId)).toBeGreaterThan(200);
    expect(await widthOf(`#/run/${m}/ep/${row.phase}/${row.epoch}/${row.taskIndex}`, '#written')).toBe(1400);
    expect(await widthOf(`#/run/${m}/memory/${encodeURIComponent(row.memoryId!)}`, '#uses')).toBe(1400);
    expect(await widthOf(`#/run/${m}`, '#legend')).toBe(1400);
    await wide.locator('#manifest summary').click();
    expect(await wide.evaluate(() => document.documentElement.scrollWidth)).toBe(1400);
    expect(await widthOf(`#/compare/${m}/${o}`, '#compare')).toBe(1400);
    expect(await widthOf('#/', '#runs tbody tr')).toBe(1400);
    await wide.close();
  });

  it('compare chips: readable pass/fail, and each injected memory with its Q and similarity', async () => {
    await openCompare();
    await page.getByLabel('show tasks that did not flip too').check();
    const last = rowsOf(memrlDir).filter((r) => r.epoch === 3);
    expect(await page.locator('#compare tbody tr').count()).toBe(last.length);
    let shown = 0;
    for (const r of last) {
      const chips = await page.locator(`#compare tbody tr[data-task="${r.taskId}"] td:nth-child(3) .chip`).allTextContents();
      expect(chips).toEqual(r.retrievedIds.map((id, i) => `${id} · Q ${r.retrievedQ![i]!.toFixed(3)} · sim ${r.retrievedSim![i]!.toFixed(3)}`));
      shown += chips.length;
    }
    expect(shown).toBeGreaterThan(0);
    const chips = await colours(page.locator('#compare .chip'));
    expect(chips.filter((c) => /^(pass|fail)$/.test(c.text))).toHaveLength(2 * last.length);
    for (const c of chips) expect(contrast(c.fg, c.bg), `${c.text}: ${c.fg} on ${c.bg}`).toBeGreaterThanOrEqual(4.5);
    await page.screenshot({ path: join(shots, 'compare-chips.png') });
    // The outcome chips on a memory's page too.
    await page.locator('#compare .chip.memory').first().click();
    await page.waitForSelector('#uses');
    const uses = await colours(page.locator('#uses .chip'));
    expect(uses.length).toBeGreaterThan(0);
    for (const c of uses) expect(contrast(c.fg, c.bg), `${c.text}: ${c.fg} on ${c.bg}`).toBeGreaterThanOrEqual(4.5);
  });

  it('made no request anywhere but the local server, and raised no error', () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((r) => !r.startsWith(url))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('a port in use, or a folder with no runs, is one line and exit 2', async () => {
    const port = new URL(url).port;
    const busy = await startView([join(work, 'runs'), '--port', port]);
    expect(busy.code).toBe(2);
    expect(busy.stderr.trim().split('\n')).toEqual([`memrl: --port ${port}: already in use on 127.0.0.1; give another --port (or 0 for any free one)`]);
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const none = await startView([empty, '--port', '0']);
    expect(none.code).toBe(2);
    expect(none.stderr.trim()).toBe(`memrl: ${empty}: holds no memrl run folder (a folder with run.json and outcomes.jsonl)`);
    console.log(`[view.test] screenshots: ${shots}`);
  });
});
