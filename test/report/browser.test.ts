/// <reference lib="dom" />
/**
 * The HTML report in a real headless browser (Debian's Chromium through playwright-core):
 * it opens from a file with no network and no console error, every chart is drawn
 * with the run's own numbers, labels do not collide, and a screenshot is kept.
 *
 * Needs /usr/bin/chromium (`bash scripts/setup.sh browser`). Under CI=true a missing
 * Chromium fails the test; elsewhere the test is skipped with the reason.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { barChart, chartScripts, lineChart } from '../../src/report/html/charts.js';
import { buildReport } from '../../src/report/report-cli.js';
import { makeRun } from './fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const CI = process.env.CI === 'true' || process.env.CI === '1';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && !CI) console.warn(`[browser.test] skipped: ${CHROMIUM} not found (install it with: bash scripts/setup.sh browser)`);

const EPOCHS = 4;
const METHODS = ['none', 'rag', 'memp', 'memrl'] as const;
const LABEL: Record<(typeof METHODS)[number], string> = { none: 'No memory', rag: 'RAG', memp: 'MemP', memrl: 'MemRL' };
const SEEDS = [1, 2];

/** Kept after the run: the report and its screenshot, to look at. */
const outDir = mkdtempSync(join(tmpdir(), 'memrl-report-browser-'));
const runsDir = join(outDir, 'runs');
const htmlPath = join(outDir, 'report.html');
const fileUrl = pathToFileURL(htmlPath).href;

let browser: Browser | undefined;
let page: Page;
const consoleErrors: string[] = [];
const pageErrors: string[] = [];
const requests: string[] = [];

interface EpochMetrics {
  epoch: number;
  acc: number;
  csr: number;
}
interface Metrics {
  train: { last: number; csrFinal: number; epochs: EpochMetrics[] };
  valid?: { last: number; epochs: EpochMetrics[] };
}
const metricsOf = (id: string): Metrics => JSON.parse(readFileSync(join(runsDir, 'bcb', id, 'metrics.json'), 'utf8')) as Metrics;

describe.skipIf(!haveChromium && !CI)('memrl report in headless Chromium', () => {
  beforeAll(async () => {
    if (!haveChromium) throw new Error(`CI=true but ${CHROMIUM} is missing: install it (bash scripts/setup.sh browser)`);
    for (const method of METHODS) for (const seed of SEEDS) await makeRun(join(runsDir, 'bcb', `${method}-s${seed}`), { benchmark: 'bcb', method, seed, epochs: EPOCHS, valid: 4 });
    writeFileSync(htmlPath, buildReport([runsDir], {}));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(fileUrl, { waitUntil: 'load' });
    const shot = join(outDir, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`[browser.test] report: ${htmlPath}\n[browser.test] screenshot: ${shot}`);
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(runsDir, { recursive: true, force: true });
  });

  it('opens from the file alone: no error, no warning, no other request', () => {
    expect(consoleErrors).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(requests).toEqual([fileUrl]);
  });

  it('shows the sim banner at the top', async () => {
    const banner = page.locator('header .banner.simulated');
    await expect(banner.isVisible()).resolves.toBe(true);
    expect(await banner.textContent()).toContain('Simulated model (sim): pipeline check, not a result.');
    const box = (await banner.boundingBox())!;
    expect(box.y).toBeLessThan(200);
  });

  it('covers every part the issue lists', async () => {
    const ids = await page.$$eval('section', (s) => s.map((x) => x.id));
    expect(ids).toEqual(['runs', 'comparison', 'curves', 'forgetting', 'breakdown', 'memory', 'analysis', 'cost', 'manifest']);
    const figures = await page.$$eval('figure', (f) => f.map((x) => x.id));
    for (const id of ['compare-bcb', 'curve-acc-bcb', 'curve-csr-bcb', 'curve-valid-bcb', 'forgetting-flip', 'forgetting-final', 'memory-count', 'retrieval-change', 'cost-tokens', 'qcritic-calibration', 'memory-churn']) expect(figures).toContain(id);
    // Q of every memory per epoch (from q-history.jsonl), per run that learns Q (MemRL, 2 seeds).
    expect(figures.filter((f) => f.startsWith('q-hist-'))).toHaveLength(2);
    // Per memory run whose Q changed (MemRL, 2 seeds): Q distribution and the top memories' Q trajectories;
    // the top memories of every memory run (RAG, MemP and MemRL).
    expect(figures.filter((f) => f.startsWith('q-dist-'))).toHaveLength(2);
    expect(figures.filter((f) => f.startsWith('q-trajectory-'))).toHaveLength(2);
    expect(await page.locator('table.top-memories').count()).toBe(6);
    expect(await page.locator('#manifest details').count()).toBe(METHODS.length * SEEDS.length);
  });

  it('draws every chart with Chart.js at a real size, from the figure’s own data', async () => {
    const charts = await page.$$eval('figure[data-chart]', (figs) =>
      figs.map((f) => {
        const canvas = f.querySelector('canvas')!;
        const chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): { data: { datasets: { data: unknown[] }[] } } | undefined } }).Chart.getChart(canvas);
        const r = canvas.getBoundingClientRect();
        return { id: f.id, w: r.width, h: r.height, drawn: chart !== undefined, points: chart ? chart.data.datasets.reduce((n, d) => n + d.data.length, 0) : 0 };
      }),
    );
    expect(charts.length).toBeGreaterThanOrEqual(13);
    for (const c of charts) {
      expect(c.drawn, `${c.id} has a chart`).toBe(true);
      expect(c.w, c.id).toBeGreaterThan(300);
      expect(c.h, c.id).toBeGreaterThan(100);
      expect(c.points, `${c.id} draws something`).toBeGreaterThan(0);
    }
  });

  it('a legend item toggles its series, and a point shows a tooltip', async () => {
    // Real DOM events at the canvas's own coordinates (as a mouse would send them), read back from Chart.js.
    const r = await page.$eval('#curve-acc-bcb canvas', async (c) => {
      const chart = (window as any).Chart.getChart(c);
      const at = (type: string, x: number, y: number): void => {
        const box = c.getBoundingClientRect();
        c.dispatchEvent(new MouseEvent(type, { clientX: box.left + x, clientY: box.top + y, bubbles: true }));
      };
      const settle = (): Promise<void> => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(() => res())));
      const point = chart.getDatasetMeta(0).data[1];
      at('mousemove', point.x, point.y);
      await settle();
      const tooltip = chart.tooltip.getActiveElements().length;
      const hit = chart.legend.legendHitBoxes[0];
      at('click', hit.left + hit.width / 2, hit.top + hit.height / 2);
      await settle();
      const hidden = !chart.isDatasetVisible(0);
      at('click', hit.left + hit.width / 2, hit.top + hit.height / 2);
      await settle();
      return { tooltip, hidden, shownAgain: chart.isDatasetVisible(0) };
    });
    expect(r).toEqual({ tooltip: expect.any(Number), hidden: true, shownAgain: true });
    expect(r.tooltip).toBeGreaterThan(0);
  });

  it('overlapping series stay apart: every series of a chart has its own dash pattern and point shape', async () => {
    const styles = await page.$eval('#curve-csr-bcb canvas', (c) =>
      (window as any).Chart.getChart(c).data.datasets.slice(0, 6).map((d: { borderDash: number[]; pointStyle: string }) => `${JSON.stringify(d.borderDash)} ${d.pointStyle}`),
    );
    expect(new Set(styles).size).toBe(styles.length);
  });

  it('plots one point per epoch for each run, at the run’s own values', async () => {
    for (const method of METHODS) {
      for (const seed of SEEDS) {
        const id = `${method}-s${seed}`;
        const m = metricsOf(id);
        const label = `${LABEL[method]} · BigCodeBench · s${seed} †`;
        for (const [fig, want] of [
          ['curve-acc-bcb', m.train.epochs.map((e) => e.acc)],
          ['curve-csr-bcb', m.train.epochs.map((e) => e.csr)],
          ['curve-valid-bcb', m.valid!.epochs.map((e) => e.acc)],
        ] as const) {
          const drawn = await page.$eval(`#${fig} canvas`, (c, l) => {
            const chart = (window as any).Chart.getChart(c);
            const i = chart.data.datasets.findIndex((d: { label: string }) => d.label === l);
            return i < 0 ? null : { values: chart.data.datasets[i].data.map((p: { y: number }) => p.y), elements: chart.getDatasetMeta(i).data.length };
          }, label);
          expect(drawn, `${fig} ${id}`).not.toBeNull();
          expect(drawn!.values, `${fig} ${id}`).toEqual(want);
          expect(drawn!.elements, `${fig} ${id}`).toBe(want.length);
        }
        expect(m.train.epochs).toHaveLength(EPOCHS);
      }
    }
  });

  it("prints the runs' last-epoch accuracy and CSR from metrics.json", async () => {
    for (const method of METHODS) {
      for (const seed of SEEDS) {
        const id = `${method}-s${seed}`;
        const m = metricsOf(id);
        const row = page.locator(`#runs-table tr[data-run="${id}"]`);
        expect(await row.locator('td[data-metric="last"]').textContent()).toBe(m.train.last.toFixed(3));
        expect(await row.locator('td[data-metric="csr"]').textContent()).toBe(m.train.csrFinal.toFixed(3));
        expect(await row.locator('td[data-metric="valid-last"]').textContent()).toBe(m.valid!.last.toFixed(3));
      }
    }
  });

  it('counts memories per epoch as outcomes.jsonl records them', async () => {
    for (const method of ['rag', 'memrl']) {
      for (const seed of SEEDS) {
        const id = `${method}-s${seed}`;
        const rows = readFileSync(join(runsDir, 'bcb', id, 'outcomes.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { phase: string; epoch: number; memoryId?: string });
        let total = 0;
        const want = Array.from({ length: EPOCHS }, (_v, i) => (total += rows.filter((r) => r.phase === 'train' && r.epoch === i + 1 && r.memoryId).length));
        const label = `${method === 'rag' ? 'RAG' : 'MemRL'} · BigCodeBench · s${seed} †`;
        const drawn = await page.$eval('#memory-count canvas', (c, l) => (window as any).Chart.getChart(c).data.datasets.find((d: { label: string }) => d.label === l)?.data.map((p: { y: number }) => p.y), label);
        expect(drawn).toEqual(want);
        const cells = await page.locator('#memory-count-table tr', { hasText: label }).locator('td[data-epoch]').allTextContents();
        expect(cells.map(Number)).toEqual(want);
      }
    }
    const labels = await page.$eval('#memory-count canvas', (c) => (window as any).Chart.getChart(c).data.datasets.map((d: { label: string }) => d.label));
    expect(labels.filter((l: string) => l.startsWith('No memory'))).toEqual([]);
  });

  it('a run whose Q never changed (RAG, MemP) gets a note saying so instead of a flat Q chart', async () => {
    for (const method of ['rag', 'memp', 'memrl'] as const) {
      for (const seed of SEEDS) {
        const id = `${method}-s${seed}`;
        const seen = new Set(
          readFileSync(join(runsDir, 'bcb', id, 'outcomes.jsonl'), 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { phase: string; retrievedQ?: number[] })
            .flatMap((r) => (r.phase === 'train' ? (r.retrievedQ ?? []) : [])),
        );
        expect(seen.size, id).toBeGreaterThan(0);
        const note = page.locator(`#memory .q-constant[data-run="${id}"]`);
        if (method === 'memrl') {
          expect(seen.size, id).toBeGreaterThan(1);
          expect(await note.count(), id).toBe(0);
        } else {
          expect([...seen], id).toHaveLength(1);
          expect(await note.textContent()).toBe(`Q is not charted: every memory this run retrieved had Q = ${[...seen][0]!.toFixed(3)}, in every epoch. Its Q did not change: a chart would be one flat line.`);
        }
      }
    }
  });

  it('lists the token use per role from summary.json', async () => {
    const summary = JSON.parse(readFileSync(join(runsDir, 'bcb', 'memrl-s1', 'summary.json'), 'utf8'));
    const memory = summary.usage.byRole.memory as { calls: number; totalTokens: number };
    expect(memory.calls).toBeGreaterThan(0);
    const cells = await page.locator('#cost-table tr', { hasText: 'MemRL · BigCodeBench · s1 †' }).filter({ hasText: 'memory' }).locator('td').allTextContents();
    expect(cells[2]).toBe(String(memory.calls));
    expect(cells[5]).toBe(String(memory.totalTokens));
  });

  it('shows the learning-dynamics analysis of each run, from its own rows', async () => {
    // Lifelong metrics: learning gain = last − first epoch accuracy, per run.
    for (const method of METHODS) {
      const m = metricsOf(`${method}-s1`);
      const label = `${LABEL[method]} · BigCodeBench · s1 †`;
      const cells = await page.locator('#lifelong-table tr', { hasText: label }).locator('td').allTextContents();
      const gain = m.train.epochs.at(-1)!.acc - m.train.epochs[0]!.acc;
      expect(cells[1]).toBe(`${gain >= 0 ? '+' : ''}${gain.toFixed(3)}`);
    }
    // The Q-critic applies to MemRL only, and says why not for the others.
    const critic = (label: string) => page.locator('#qcritic-table tr', { hasText: label }).locator('td').allTextContents();
    expect((await critic('No memory · BigCodeBench · s1 †'))[1]).toMatch(/keeps no memory/);
    expect((await critic('RAG · BigCodeBench · s1 †'))[1]).toMatch(/constant/);
    const memrl = await critic('MemRL · BigCodeBench · s1 †');
    const rows = readFileSync(join(runsDir, 'bcb', 'memrl-s1', 'outcomes.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { status: string; retrievedQ?: number[] });
    expect(Number(memrl[1])).toBe(rows.filter((r) => r.status !== 'error').reduce((n, r) => n + (r.retrievedQ?.length ?? 0), 0));
    // Box per epoch: every memory the run holds after it.
    const history = readFileSync(join(runsDir, 'bcb', 'memrl-s1', 'q-history.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(history).toHaveLength(EPOCHS);
    expect(await page.locator('#high-q-failures tr', { hasText: 'MemRL · BigCodeBench · s1 †' }).count()).toBe(1);
  });

  it('draws zero as zero, leaves a missing value empty, and puts a one-epoch run in the middle of its axis', async () => {
    const probe = await browser!.newPage({ viewport: { width: 1000, height: 800 } });
    await probe.setContent(
      `<!doctype html><body>${barChart({ id: 'z', title: 'zero', yLabel: 'v', groups: ['a', 'b', 'c'], series: [{ label: 's', values: [0, null, 1] }] })}` +
        `${lineChart({ id: 'one', title: 'one epoch', xLabel: 'epoch', yLabel: 'acc', yDomain: [0, 1], series: [{ label: 'r', points: [{ x: 1, y: 0.5 }] }] })}${chartScripts()}</body>`,
    );
    const bars = await probe.$eval('#z canvas', (c) => (window as any).Chart.getChart(c).getDatasetMeta(0).data.map((e: { height: number; skip?: boolean }) => ({ h: Math.abs(e.height), skip: e.skip === true || !Number.isFinite(e.height) })));
    expect(bars[0].h).toBeGreaterThanOrEqual(2); // 0: a sliver at the axis, not nothing
    expect(bars[0].skip).toBe(false);
    expect(bars[1].skip).toBe(true); // null: no bar
    const one = await probe.$eval('#one canvas', (c) => {
      const chart = (window as any).Chart.getChart(c);
      const p = chart.getDatasetMeta(0).data[0];
      return { x: p.x, left: chart.chartArea.left, right: chart.chartArea.right, min: chart.scales.x.min, max: chart.scales.x.max };
    });
    expect([one.min, one.max]).toEqual([0, 2]);
    expect(Math.abs(one.x - (one.left + one.right) / 2)).toBeLessThan(2);
    await probe.close();
  });

  it('keeps the report and the screenshot for a look', () => {
    expect(readdirSync(outDir)).toEqual(expect.arrayContaining(['report.html', 'report.png']));
  });
});
