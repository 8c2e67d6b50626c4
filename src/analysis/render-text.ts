/** `memrl analyze`'s terminal output: one block per run, then the cross-run sections. */
import type { CrossRunAnalysis, RunAnalysis, Section } from './analyze.js';
import type { Correlation } from './q-critic.js';

const f = (x: number | null | undefined, digits = 3): string => (x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(digits));
const signed = (x: number | null): string => (x === null ? '—' : `${x >= 0 ? '+' : ''}${x.toFixed(3)}`);

function corr(c: Correlation): string {
  if (c.n === 0) return 'no pairs';
  const ci = c.pearsonCi ? ` [${f(c.pearsonCi[0], 2)}, ${f(c.pearsonCi[1], 2)}]` : '';
  return `Pearson ${f(c.pearson)}${ci}, Spearman ${f(c.spearman)} (n ${c.n})`;
}

function na<T>(s: Section<T>): string | null {
  return 'notApplicable' in s ? `n/a: ${s.notApplicable}` : null;
}

export function renderRunAnalysis(a: RunAnalysis): string {
  const out: string[] = [];
  const noise = a.run.rewardNoise > 0 ? `, reward noise ${a.run.rewardNoise}` : '';
  out.push(`== ${a.run.benchmark}/${a.run.id} (${a.run.method}, seed ${a.run.seed ?? '—'}${noise})`);
  const l = a.lifelong;
  out.push(
    `lifelong    acc ${f(l.firstAcc)} → ${f(l.lastAcc)} over ${l.epochs} epoch(s): learning gain ${signed(l.learningGain)}, stability loss ${f(l.stabilityLoss)}, forgetting rate ${f(l.forgettingRate)}, forgetting (max) ${f(l.forgettingMax)}, backward transfer ${f(l.backwardTransfer)}`,
  );
  out.push(`            held-out transfer ${l.heldOutTransfer === null ? `n/a: ${l.heldOutNote}` : signed(l.heldOutTransfer)}`);
  const q = na(a.qCritic);
  if (q) out.push(`q-critic    ${q}`);
  else if ('value' in a.qCritic) {
    const c = a.qCritic.value;
    out.push(`q-critic    Q at retrieval vs episode success: ${corr(c.overall)}`);
    out.push(`            binned (Q bin mean vs success rate): r ${f(c.binnedPearson)}; per memory (mean Q vs success of its episodes): ${corr(c.memories)}`);
    if (c.byEpoch.length) out.push(`            by epoch: ${c.byEpoch.map((e) => `e${e.epoch} ${f(e.correlation.pearson, 2)} (n ${e.correlation.n})`).join('  ')}`);
    out.push(`            calibration: ${c.calibration.map((b) => `Q ${f(b.lo, 2)}..${f(b.hi, 2)}: ${f(b.successRate, 2)} (n ${b.n})`).join(' | ')}`);
  }
  const m = na(a.memory);
  if (m) out.push(`memory      ${m}`);
  else if ('value' in a.memory) {
    const d = a.memory.value;
    out.push('memory      epoch  memories  added  never-retrieved  churn  injected  success-share  Q p25 / median / p75');
    for (const e of d.epochs) {
      out.push(
        `            ${String(e.epoch).padEnd(6)} ${String(e.memories ?? '—').padEnd(9)} ${String(e.added).padEnd(6)} ${String(e.neverRetrieved ?? '—').padEnd(16)} ${f(e.churn, 2).padEnd(6)} ${String(e.injected).padEnd(9)} ${f(e.injectedSuccessShare, 2).padEnd(14)} ${e.q ? `${f(e.q.p25, 2)} / ${f(e.q.median, 2)} / ${f(e.q.p75, 2)}` : '—'}`,
      );
    }
    const h = d.highQFailures;
    out.push(
      `            never retrieved over the run: ${d.neverRetrieved}; high-Q failure memories (Q > ${h.threshold} when injected): ${h.memories.length}` +
        (h.memories.length ? `; episodes using one succeed ${f(h.successWith, 2)}, episodes using only others ${f(h.successWithout, 2)}` : ''),
    );
    for (const x of h.memories.slice(0, 5)) out.push(`              ${x.id}${x.taskId ? ` (${x.taskId})` : ''}: used ${x.uses}×, success ${f(x.successRate, 2)}, max Q ${f(x.maxQ, 2)}`);
  }
  const s = na(a.similarity);
  out.push(s ? `similarity  ${s}` : 'value' in a.similarity ? `similarity  mean pairwise cosine of task keys ${f(a.similarity.value.meanPairwiseCosine)} over ${a.similarity.value.tasks} tasks` : '');
  return `${out.join('\n')}\n`;
}

export function renderCrossRun(c: CrossRunAnalysis): string {
  if (c.runs < 2) return '';
  const out: string[] = [`== across ${c.runs} runs`];
  if (c.ablations.length === 0) out.push('ablations   none: no (benchmark, method) group varies k1, k2, λ, the threshold, ε or α');
  for (const a of c.ablations) {
    out.push(`ablation    ${a.column} · ${a.method} · ${a.label}${a.confounded.length ? ` (also varies: ${a.confounded.join(', ')})` : ''}`);
    for (const r of a.rows) out.push(`              ${String(r.value).padEnd(8)} last ${f(r.meanLast)}  (${r.runs} run(s), seeds ${r.seeds.join(', ')})`);
  }
  const sg = c.similarityVsGain;
  const withGain = sg.columns.filter((x) => Object.keys(x.gains).length > 0);
  if (withGain.length === 0) out.push('similarity vs gain: n/a (needs `none` runs next to memory runs of the same benchmark)');
  for (const col of withGain) {
    out.push(`similarity vs gain  ${col.column}: similarity ${f(col.similarity)}; gain over none: ${Object.entries(col.gains).map(([m, g]) => `${m} ${signed(g)}`).join(', ')}`);
  }
  for (const [m, r] of Object.entries(sg.correlation)) if (r !== null) out.push(`              ${m}: Pearson(similarity, gain) across benchmarks ${f(r)}`);
  for (const n of c.rewardNoise) {
    out.push(`reward noise ${n.column} · ${n.method} · p=${n.rewardNoise}: last ${f(n.noisyLast)} vs clean ${f(n.cleanLast)}; ${n.survival === null ? 'gain survival n/a' : `${(100 * n.survival).toFixed(0)}% of the clean gain survives`} (gain over ${n.reference === 'none' ? 'none' : 'the first epoch'})`);
  }
  return `${out.join('\n')}\n`;
}
