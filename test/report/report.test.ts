/**
 * The HTML report without a browser: self-contained, drawn from the run's numbers,
 * escaped. (Rendering in headless Chromium is a separate, later test.)
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OutcomeRow } from '../../src/metrics/outcome-row.js';
import { readRunFolder } from '../../src/results/run-folder.js';
import { registerReportCommand } from '../../src/cli/commands/report.js';
import { buildReport } from '../../src/report/report-cli.js';
import { loadPaperResults } from '../../src/report/paper-results.js';
import { buildGoldenSet } from './fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'memrl-report-'));
const golden = join(root, 'golden');
afterAll(() => rmSync(root, { recursive: true, force: true }));
let html = '';
beforeAll(async () => {
  await buildGoldenSet(golden);
  html = buildReport([golden], {}, '2026-01-01T00:00:00.000Z');
});

const unescape = (s: string): string => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

interface FigureSpec {
  kind: 'line' | 'bar' | 'box';
  series?: { label: string; points?: { x: number; y: number | null }[]; values?: (number | null)[] }[];
  references?: { label: string; y: number }[];
}

/** The spec a figure's chart is drawn from (the JSON beside its canvas). */
function figureSpec(doc: string, figureId: string): FigureSpec {
  const start = doc.indexOf(`<figure class="figure" id="${figureId}"`);
  expect(start, figureId).toBeGreaterThanOrEqual(0);
  const fig = doc.slice(start, doc.indexOf('</figure>', start));
  const json = /<script type="application\/json" class="chart-spec">(.*?)<\/script>/s.exec(fig)![1]!;
  return JSON.parse(json) as FigureSpec;
}

/** The values one series of one figure is drawn from. */
function seriesValues(doc: string, figureId: string, label: string): unknown {
  const s = figureSpec(doc, figureId).series?.find((x) => x.label === label);
  expect(s, `${figureId}: series ${label}`).toBeDefined();
  return s!.points ? s!.points.map((p) => p.y) : s!.values;
}

/** The page without its scripts (Chart.js's own source says "undefined" and "Infinity"). */
const withoutScripts = (doc: string): string => doc.replace(/<script\b[^>]*>.*?<\/script>/gs, '');

describe('memrl report (HTML)', () => {
  it('is one self-contained file: its scripts inline, no external resource', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    for (const tag of html.matchAll(/<script\b[^>]*>/g)) expect(tag[0]).not.toMatch(/\ssrc=/);
    expect(withoutScripts(html)).not.toMatch(/<link|<img|<iframe|\ssrc=|href="(https?:)?\/\/|url\(|@import/i);
    expect(withoutScripts(html)).not.toMatch(/NaN|undefined|Infinity/);
    // Chart.js itself is in the file.
    expect(html).toMatch(/<script>[^<]*Chart\.js v4\./);
    for (const id of ['runs', 'comparison', 'curves', 'forgetting', 'breakdown', 'memory', 'cost', 'manifest']) expect(html).toContain(`<section id="${id}">`);
  });

  it('says up front that sim runs are pipeline checks', () => {
    expect(html).toMatch(/<header>.*<div class="banner simulated">† Simulated model \(sim\): pipeline check, not a result\.<\/div>/s);
  });

  it("draws the learning curves from each run's own metrics", () => {
    const run = readRunFolder(join(golden, 'bcb', 'memrl-s2'));
    const label = 'MemRL · BigCodeBench · s2 †';
    expect(seriesValues(html, 'curve-acc-bcb', label)).toEqual(run.metrics.train.epochs.map((e) => e.acc));
    expect(seriesValues(html, 'curve-csr-bcb', label)).toEqual(run.metrics.train.epochs.map((e) => e.csr));
    expect(seriesValues(html, 'forgetting-final', 'forgetting_flip')).toContain(run.metrics.train.forgettingFlip);
  });

  it('shows the method comparison with the table’s intervals and bars', () => {
    expect(html).toMatch(/data-cell="memrl\/bcb\/last"><strong>0\.611 ± 0\.042 \(n=3\)<\/strong><sup>†<\/sup>/);
    expect(seriesValues(html, 'compare-bcb', 'Last')).toEqual([1 / 3, 0.5, 0.5, (7 / 12 + 7 / 12 + 8 / 12) / 3].map((x) => expect.closeTo(x, 12)));
  });

  it('counts memories per epoch and leaves method none out of the memory charts', () => {
    // One memory per finished training episode: 12 tasks per epoch.
    expect(seriesValues(html, 'memory-count', 'MemRL · BigCodeBench · s1 †')).toEqual([12, 24, 36]);
    expect(() => seriesValues(html, 'memory-count', 'No memory · BigCodeBench · s1 †')).toThrow();
    const shares = seriesValues(html, 'retrieval-change', 'MemRL · BigCodeBench · s1 †') as number[];
    expect(shares).toHaveLength(2);
    for (const s of shares) expect(s).toBeGreaterThanOrEqual(0);
  });

  it('lists token use per role from summary.json', () => {
    const summary = JSON.parse(readFileSync(join(golden, 'bcb', 'memrl-s1', 'summary.json'), 'utf8'));
    const agent = summary.usage.byRole.agent;
    expect(html).toContain(`<tr><td>MemRL · BigCodeBench · s1 †</td><td>agent</td><td>${agent.calls}</td><td>${agent.promptTokens}</td><td>${agent.completionTokens}</td><td>${agent.totalTokens}</td></tr>`);
  });

  it("with --paper: the paper's rows in the comparison and its last-epoch accuracy as reference lines", () => {
    const paper = loadPaperResults();
    const doc = buildReport([golden], { paper: true }, '2026-01-01T00:00:00.000Z');
    const bcbLast = paper.results.filter((p) => p.benchmark === 'bcb' && p.metric === 'last');
    expect(bcbLast.length).toBeGreaterThan(0);
    const refs = figureSpec(doc, 'curve-acc-bcb').references ?? [];
    expect(refs.map((r) => r.y).sort()).toEqual(bcbLast.map((p) => p.value).sort());
    expect(figureSpec(html, 'curve-acc-bcb').references ?? []).toEqual([]);
    // One learning-curve panel per benchmark: HLE's has its own figures.
    expect(seriesValues(html, 'curve-acc-hle', 'MemRL · HLE · s1 †')).toHaveLength(readRunFolder(join(golden, 'hle', 'memrl-s1')).metrics.train.epochs.length);
  });

  it('escapes whatever a run folder says about itself', () => {
    const dir = join(root, 'odd', 'run');
    cpSync(join(golden, 'bcb', 'memrl-s1'), dir, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...manifest, model: '<img src=x onerror=alert(1)>' }));
    const odd = buildReport([dir], {});
    expect(odd).not.toContain('<img');
    expect(odd).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('breaks accuracy down by category when rows carry one', () => {
    const dir = join(root, 'hle-like');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ benchmark: 'hle', method: 'none', model: 'sim', simulated: true, seed: 1 }));
    const row = (taskId: string, category: string, success: boolean): OutcomeRow => ({
      benchmark: 'hle', taskId, taskIndex: Number(taskId.slice(1)), epoch: 1, phase: 'train', status: success ? 'pass' : 'fail', success, reward: success ? 1 : 0,
      steps: 1, retrievedIds: [], promptTokens: 1, completionTokens: 1, totalTokens: 2, extra: { category },
    });
    const rows = [row('t0', 'Math', true), row('t1', 'Math', false), row('t2', 'Physics', true)];
    writeFileSync(join(dir, 'outcomes.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const doc = buildReport([dir], {});
    expect(doc).toContain('<tr><td>Math</td><td>2</td><td>1</td><td>0.500</td></tr><tr><td>Physics</td><td>1</td><td>1</td><td>1.000</td></tr>');
    expect(doc).toContain('No run here uses memory');
  });

  it('the command writes the file and fails in one line on a folder that is not a run', async () => {
    const program = new Command().exitOverride();
    registerReportCommand(program);
    const out = join(root, 'r.html');
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await program.parseAsync(['report', join(golden, 'hle'), '--out', out], { from: 'user' });
    } finally {
      spy.mockRestore();
    }
    expect(readFileSync(out, 'utf8')).toContain('<section id="curves">');
    mkdirSync(join(root, 'empty'), { recursive: true });
    await expect(program.parseAsync(['report', join(root, 'empty')], { from: 'user' })).rejects.toThrow(/empty: holds no memrl run folder/);
  });
});
