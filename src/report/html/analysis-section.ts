/**
 * The report's analysis section (docs/analysis.md): lifelong metrics, the Q-critic,
 * the memory's Q per epoch, churn, high-Q failure memories, similarity against gain,
 * ablation curves and reward-noise survival. Read from each run's analysis.json when
 * `memrl analyze` wrote one; computed here otherwise (all but the task similarity,
 * which needs the run's embedder).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANALYSIS_FILE, ANALYSIS_VERSION, analyzeRunWithoutEmbedding, crossRun, pointOf, shareSimilarity, type CrossRunAnalysis, type RunAnalysis } from '../../analysis/analyze.js';
import { runInputOf } from '../../analysis/run-input.js';
import type { RunFolder } from '../../results/run-folder.js';
import { benchmarkName, methodName, paperSimilarityGains } from '../names.js';
import { boxChart, esc, lineChart } from './charts.js';

export interface ReportAnalysis {
  /** By run folder path. */
  runs: Map<string, RunAnalysis>;
  cross: CrossRunAnalysis;
  /** Runs whose analysis came from analysis.json (with the task similarity). */
  fromFile: number;
}

export function reportAnalysis(runs: readonly RunFolder[]): ReportAnalysis {
  const out = new Map<string, RunAnalysis>();
  const points = [];
  let fromFile = 0;
  for (const run of runs) {
    const input = runInputOf(run);
    const file = join(run.dir, ANALYSIS_FILE);
    let a: RunAnalysis | null = null;
    if (existsSync(file)) {
      try {
        const saved = JSON.parse(readFileSync(file, 'utf8')) as RunAnalysis;
        // Only while it matches the rows: a resumed run may have grown since.
        if (saved.version === ANALYSIS_VERSION && saved.lifelong?.epochs === run.metrics.train.epochs.length) a = saved;
      } catch {
        a = null;
      }
    }
    if (a) fromFile++;
    else a = analyzeRunWithoutEmbedding(input);
    out.set(run.dir, a);
    points.push(pointOf(input, a));
  }
  shareSimilarity(points);
  return { runs: out, cross: crossRun(points), fromFile };
}

const f3 = (x: number | null | undefined): string => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(3));
const signed = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : `${x >= 0 ? '+' : ''}${x.toFixed(3)}`);
const na = (why: string): string => `<td class="na" title="${esc(why)}">n/a</td>`;

export function analysisSection(items: readonly { run: RunFolder; label: string }[], analysis: ReportAnalysis): string {
  const rows = items.map((i) => ({ ...i, a: analysis.runs.get(i.run.dir)! }));
  let html =
    analysis.fromFile < rows.length
      ? `<p class="note">${rows.length - analysis.fromFile} run(s) have no analysis.json: computed here without the task similarity. <code>memrl analyze &lt;runs&gt;</code> adds it. Definitions: docs/analysis.md.</p>`
      : '<p class="note">From each run’s analysis.json (<code>memrl analyze</code>). Definitions: docs/analysis.md.</p>';

  html += '<h3>Lifelong-learning metrics (training phase)</h3>';
  html +=
    '<table id="lifelong-table"><thead><tr><th>run</th><th>learning gain</th><th>stability loss</th><th>forgetting rate</th><th>backward transfer</th><th>held-out transfer</th></tr></thead><tbody>' +
    rows
      .map(({ label, a }) => {
        const l = a.lifelong;
        return `<tr><td>${esc(label)}</td><td>${signed(l.learningGain)}</td><td>${f3(l.stabilityLoss)}</td><td>${f3(l.forgettingRate)}</td><td>${f3(l.backwardTransfer)}</td>${l.heldOutTransfer === null ? na(l.heldOutNote ?? '') : `<td>${signed(l.heldOutTransfer)}</td>`}</tr>`;
      })
      .join('') +
    '</tbody></table>';

  html += '<h3>Q-critic: does a memory’s Q predict success?</h3>';
  const critics = rows.filter((r) => 'value' in r.a.qCritic);
  html +=
    '<table id="qcritic-table"><thead><tr><th>run</th><th>pairs</th><th>Pearson r [95% CI]</th><th>Spearman</th><th>binned r</th><th>per-memory r</th></tr></thead><tbody>' +
    rows
      .map(({ label, a }) => {
        if ('notApplicable' in a.qCritic) return `<tr><td>${esc(label)}</td><td colspan="5" class="na">${esc(a.qCritic.notApplicable)}</td></tr>`;
        const c = a.qCritic.value;
        const ci = c.overall.pearsonCi ? ` [${c.overall.pearsonCi[0].toFixed(2)}, ${c.overall.pearsonCi[1].toFixed(2)}]` : '';
        return `<tr><td>${esc(label)}</td><td>${c.overall.n}</td><td>${f3(c.overall.pearson)}${ci}</td><td>${f3(c.overall.spearman)}</td><td>${f3(c.binnedPearson)}</td><td>${f3(c.memories.pearson)}</td></tr>`;
      })
      .join('') +
    '</tbody></table>';
  if (critics.length) {
    html += lineChart({
      id: 'qcritic-calibration',
      title: 'Calibration: success rate of episodes by the Q of the memory they used (one point per Q bin)',
      xLabel: 'Q at retrieval (bin mean)',
      yLabel: 'success rate',
      yDomain: [0, 1],
      xContinuous: true,
      series: critics.map(({ label, a }) => ({ label, points: 'value' in a.qCritic ? a.qCritic.value.calibration.map((b) => ({ x: b.meanQ, y: b.successRate })) : [] })),
    });
  }

  const memoryRuns = rows.filter((r) => 'value' in r.a.memory);
  if (memoryRuns.length === 0) return `${html}<p class="note">No run here keeps memory: no Q distribution, churn or high-Q failure memories.</p>${crossSection(analysis.cross)}`;
  html += '<h3>The memory’s Q per epoch</h3>';
  memoryRuns.forEach(({ label, a }, i) => {
    if (!('value' in a.memory)) return;
    const epochs = a.memory.value.epochs;
    if ('notApplicable' in a.qCritic) {
      html += `<p class="note">${esc(label)}: Q is not learned (${esc(a.qCritic.notApplicable)}).</p>`;
      return;
    }
    if (!epochs.some((e) => e.q)) {
      html += `<p class="note">${esc(label)}: no q-history.jsonl (a run from an older memrl): Q per epoch unknown.</p>`;
      return;
    }
    html += boxChart({
      id: `q-hist-${i}`,
      title: `${label}: Q of every memory at the end of each epoch (min, quartiles, max)`,
      xLabel: 'epoch',
      yLabel: 'Q',
      boxes: epochs.map((e) => ({ label: String(e.epoch), stats: e.q ? { min: e.q.min, q1: e.q.p25, median: e.q.median, q3: e.q.p75, max: e.q.max, n: e.q.n } : null })),
    });
  });
  const churn = memoryRuns.filter(({ a }) => 'value' in a.memory && a.memory.value.epochs.some((e) => e.churn !== null));
  if (churn.length) {
    html += lineChart({
      id: 'memory-churn',
      title: 'Retrieval churn: share of injected memories that differ from the previous epoch’s for the same task',
      xLabel: 'epoch',
      yLabel: 'churn',
      yDomain: [0, 1],
      series: churn.map(({ label, a }) => ({ label, points: 'value' in a.memory ? a.memory.value.epochs.filter((e) => e.churn !== null).map((e) => ({ x: e.epoch, y: e.churn })) : [] })),
    });
  }
  html +=
    '<table id="high-q-failures"><thead><tr><th>run</th><th>never retrieved</th><th>high-Q failure memories</th><th>success with one</th><th>success without</th></tr></thead><tbody>' +
    memoryRuns
      .map(({ label, a }) => {
        if (!('value' in a.memory)) return '';
        const m = a.memory.value;
        const h = m.highQFailures;
        return `<tr><td>${esc(label)}</td><td>${m.neverRetrieved}</td><td title="Q > ${h.threshold} when injected">${h.memories.length}</td><td>${f3(h.successWith)}</td><td>${f3(h.successWithout)}</td></tr>`;
      })
      .join('') +
    '</tbody></table><p class="note">High-Q failure memories: memories written by a failed episode, injected while their Q was above the threshold; the paper argues some still help. “Success without”: episodes that injected memories, none of them such.</p>';
  return html + crossSection(analysis.cross);
}

/** "The paper relates the two: A (similarity 0.518) gains +0.229, B (0.186) +0.216." */
function paperNote(): string {
  const figures = paperSimilarityGains().map((p, i) => (i === 0 ? `${p.name} (similarity ${p.similarity}) gains +${p.gain}` : `${p.name} (${p.similarity}) +${p.gain}`));
  return figures.length ? `<p class="note">The paper relates the two: ${esc(figures.join(', '))}.</p>` : '';
}

function crossSection(c: CrossRunAnalysis): string {
  let html = '';
  const withGain = c.similarityVsGain.columns.filter((x) => Object.keys(x.gains).length > 0);
  if (withGain.length) {
    const methods = [...new Set(withGain.flatMap((x) => Object.keys(x.gains)))];
    html +=
      '<h3>Task similarity and the gain over no memory</h3><table id="similarity-gain"><thead><tr><th>benchmark</th><th>mean pairwise cosine</th>' +
      methods.map((m) => `<th>${esc(methodName(m))} − none</th>`).join('') +
      '</tr></thead><tbody>' +
      withGain.map((x) => `<tr><td>${esc(benchmarkName(x.column))}</td><td>${f3(x.similarity)}</td>${methods.map((m) => `<td>${signed(x.gains[m])}</td>`).join('')}</tr>`).join('') +
      '</tbody></table>' +
      paperNote();
  }
  c.ablations.forEach((a, i) => {
    html += lineChart({
      id: `ablation-${i}`,
      title: `${benchmarkName(a.column)} · ${methodName(a.method)}: last-epoch accuracy by ${a.label}${a.confounded.length ? ` (also varies: ${a.confounded.join(', ')})` : ''}`,
      xLabel: a.label,
      yLabel: 'last accuracy',
      yDomain: [0, 1],
      xContinuous: true,
      series: [{ label: methodName(a.method), points: a.rows.map((r) => ({ x: r.value, y: r.meanLast })) }],
    });
  });
  if (c.rewardNoise.length) {
    html +=
      '<h3>Robustness to a noisy reward</h3><table id="reward-noise"><thead><tr><th>benchmark</th><th>method</th><th>p</th><th>last (noisy)</th><th>last (clean)</th><th>gain that survives</th></tr></thead><tbody>' +
      c.rewardNoise
        .map((n) => `<tr><td>${esc(benchmarkName(n.column))}</td><td>${esc(methodName(n.method))}</td><td>${n.rewardNoise}</td><td>${f3(n.noisyLast)}</td><td>${f3(n.cleanLast)}</td><td>${n.survival === null ? '–' : `${(100 * n.survival).toFixed(0)}%`}</td></tr>`)
        .join('') +
      '</tbody></table>';
  }
  return html;
}
