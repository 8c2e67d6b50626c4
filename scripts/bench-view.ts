/**
 * `memrl view` on a run of the paper's BCB size: 1,140 tasks × 10 epochs, every episode
 * with a transcript. Prints how long the server takes to read the run and how long
 * headless Chromium takes from opening the run's page to its first grid cell.
 *
 *   npm run bench:view            # goal: first paint of the grid ≤ 2 s
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { TranscriptWriter } from '../src/core/run-files/index.js';
import { transcriptId, type Transcript } from '../src/metrics/transcripts.js';
import { startViewServer } from '../src/view/server.js';
import { Rng } from '../src/util/rng.js';

const TASKS = 1140;
const EPOCHS = 10;

function makeRun(root: string): string {
  // Start from a real (small) run folder so run.json is what memrl writes, then scale its rows up.
  const small = join(root, 'small');
  execFileSync(process.execPath, ['bin/memrl.js', 'run', 'bcb', '--limit', '2', '--epochs', '1', '--output-dir', small], { stdio: 'ignore' });
  const src = join(small, 'bcb', readdirSync(join(small, 'bcb'))[0]!);
  const dir = join(root, 'big', 'bcb', 'big-run');
  mkdirSync(dir, { recursive: true });
  cpSync(join(src, 'run.json'), join(dir, 'run.json'));
  const rng = new Rng(7);
  const lines: string[] = [];
  const writer = new TranscriptWriter(dir);
  const system = 'You are a senior Python engineer solving one BigCodeBench task at a time. '.repeat(20);
  for (let e = 1; e <= EPOCHS; e++) {
    const transcripts: Transcript[] = [];
    for (let t = 0; t < TASKS; t++) {
      const success = rng.next() < 0.4 + 0.03 * e;
      const ids = e > 1 ? [`mem-e${e - 1}-t${t}`, `mem-e${e - 1}-t${(t + 1) % TASKS}`] : [];
      const id = transcriptId('train', e, t);
      lines.push(
        JSON.stringify({
          benchmark: 'bcb', taskId: `BigCodeBench/${t}`, taskIndex: t, epoch: e, phase: 'train', status: success ? 'pass' : 'fail', success, reward: success ? 1 : 0, steps: 1,
          retrievedIds: ids, retrievedQ: ids.map(() => rng.next()), retrievedSim: ids.map(() => rng.next()), pool: ids.length, explored: false,
          promptTokens: 900, completionTokens: 200, totalTokens: 1100, latencyMs: 1000, memoryId: `mem-e${e}-t${t}`, extra: { transcriptId: id },
        }),
      );
      transcripts.push({ id, taskId: `BigCodeBench/${t}`, taskIndex: t, epoch: e, phase: 'train', calls: [{ role: 'agent', messages: [{ role: 'system', content: system }, { role: 'user', content: `Task ${t}: write task_func.` }], reply: `def task_func():\n    return ${t * e}\n` }] });
    }
    writer.append(transcripts);
  }
  writeFileSync(join(dir, 'outcomes.jsonl'), `${lines.join('\n')}\n`);
  return join(root, 'big');
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'memrl-bench-view-'));
  try {
    const runs = makeRun(root);
    let t = performance.now();
    const server = await startViewServer([runs], 0);
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(server.url);
    await page.waitForSelector('#runs tbody tr');
    const listMs = performance.now() - t;
    t = performance.now();
    await page.goto(`${server.url}#/run/0`);
    await page.waitForSelector('#grid a.cell');
    const gridMs = performance.now() - t;
    const rendered = await page.locator('#grid .gridrow').count();
    t = performance.now();
    await page.locator('#grid a.cell').nth(15).click();
    await page.waitForSelector('#transcript');
    const episodeMs = performance.now() - t;
    await browser.close();
    await server.close();
    console.log(`memrl bench:view — ${TASKS} tasks × ${EPOCHS} epochs, a transcript per episode (node ${process.version})`);
    console.log(`| step | ms | goal |\n|---|---:|---|`);
    console.log(`| runs list (server reads the run, first paint) | ${listMs.toFixed(0)} | |`);
    console.log(`| run page to the first grid cell | ${gridMs.toFixed(0)} | ≤ 2000 |`);
    console.log(`| grid rows in the DOM (virtualised) | ${rendered} of ${TASKS} | |`);
    console.log(`| click a cell to its transcript | ${episodeMs.toFixed(0)} | |`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
