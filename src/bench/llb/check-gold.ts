/**
 * `memrl check-gold llb --task db|os`: replay every gold SQL / ground-truth script
 * and the check; also run the check on an untouched environment (a check that
 * passes there is vacuous). A report: exit 0 whatever the pass rate.
 */
import type { EvaluatorFacts } from '../../env/contract.js';
import { defaultLlbFile, loadLlbFile, type DbTask, type OsTask } from './dataset.js';
import { checkDbGold } from './check-gold-db.js';
import { DB_STATEMENT_TIMEOUT_S } from './db-env.js';
import { openDbBackend, openOsBackend, type LlbEvaluatorOptions } from './evaluator.js';
import { checkGoldOs } from './os-check-gold.js';

export interface LlbGoldRow {
  id: string;
  kind: string;
  pass: boolean;
  vacuous: boolean;
  error?: string;
}

export interface LlbGoldReport {
  task: 'db' | 'os';
  file: string;
  /** Where the tasks ran: the evaluator's own description (backend, server version, image). */
  evaluator: EvaluatorFacts;
  total: number;
  passed: number;
  vacuous: number;
  byKind: Record<string, { total: number; passed: number; vacuous: number }>;
  failing: LlbGoldRow[];
  vacuousIds: string[];
  wallMs: number;
}

export interface LlbGoldOptions {
  task: 'db' | 'os';
  file?: string;
  limit?: number;
  ids?: string[];
  concurrency: number;
  /** Default: local. */
  evaluator?: Omit<LlbEvaluatorOptions, 'concurrency'>;
  onResult?: (r: LlbGoldRow, done: number, total: number) => void;
}

export async function checkGoldLlb(opts: LlbGoldOptions): Promise<LlbGoldReport> {
  const start = Date.now();
  const file = opts.file ?? defaultLlbFile(opts.task, 'runtime');
  let tasks = loadLlbFile(file, opts.task).tasks;
  if (opts.ids) {
    const want = new Set(opts.ids.map((i) => i.replace(/^(db|os)\//, '')));
    tasks = tasks.filter((t) => want.has(t.index));
  }
  if (opts.limit !== undefined) tasks = tasks.slice(0, opts.limit);
  let done = 0;
  const note = (r: LlbGoldRow) => opts.onResult?.(r, ++done, tasks.length);
  const evaluator: LlbEvaluatorOptions = { backend: 'local', ...opts.evaluator, concurrency: opts.concurrency };
  let rows: LlbGoldRow[];
  let described: EvaluatorFacts;
  if (opts.task === 'db') {
    const backend = await openDbBackend(evaluator, DB_STATEMENT_TIMEOUT_S);
    try {
      rows = await checkDbGold(tasks as DbTask[], opts.concurrency, note, backend.server);
      described = await backend.describe();
    } finally {
      await backend.close();
    }
  } else {
    const backend = await openOsBackend(evaluator);
    try {
      const res = await checkGoldOs({
        file,
        ids: (tasks as OsTask[]).map((t) => t.index),
        concurrency: opts.concurrency,
        create: () => backend.create(),
        onProgress: (_d, _n, id, ok) => note({ id: `os/${id}`, kind: 'os', pass: ok, vacuous: false }),
      });
      described = await backend.describe();
      const failed = new Set(res.failedIds);
      const vac = new Set(res.vacuousIds);
      const errs = new Map(res.errors.map((e) => [e.id, e.message]));
      rows = (tasks as OsTask[]).map((t) => ({
        id: t.id,
        kind: 'os',
        pass: !failed.has(t.index),
        vacuous: vac.has(t.index),
        error: failed.has(t.index) ? errs.get(t.index) ?? 'evaluation script failed after the ground truth' : undefined,
      }));
    } finally {
      await backend.close();
    }
  }
  const byKind: LlbGoldReport['byKind'] = {};
  for (const r of rows) {
    const k = (byKind[r.kind] ??= { total: 0, passed: 0, vacuous: 0 });
    k.total++;
    if (r.pass) k.passed++;
    if (r.vacuous) k.vacuous++;
  }
  return {
    task: opts.task,
    file,
    evaluator: described,
    total: rows.length,
    passed: rows.filter((r) => r.pass).length,
    vacuous: rows.filter((r) => r.vacuous).length,
    byKind,
    failing: rows.filter((r) => !r.pass),
    vacuousIds: rows.filter((r) => r.vacuous).map((r) => r.id),
    wallMs: Date.now() - start,
  };
}

export function formatLlbGoldSummary(r: LlbGoldReport): string {
  const pct = r.total ? ((100 * r.passed) / r.total).toFixed(1) : '0.0';
  const lines = [
    `LifelongAgentBench ${r.task} gold check (${r.file})`,
    `evaluator: ${evaluatorLine(r.evaluator)}`,
    `passed ${r.passed}/${r.total} (${pct}%)  wall ${(r.wallMs / 1000).toFixed(1)}s`,
    `by kind: ${Object.entries(r.byKind).map(([k, v]) => `${k} ${v.passed}/${v.total}`).join(', ')}`,
    `vacuous checks (pass on an untouched environment): ${r.vacuous}${r.vacuousIds.length ? ` (${r.vacuousIds.join(', ')})` : ''}`,
  ];
  if (r.failing.length > 0) {
    lines.push('failing tasks:');
    for (const f of r.failing) lines.push(`  ${f.id}  ${f.kind}${f.error ? `: ${f.error.slice(0, 200)}` : ''}`);
  }
  return lines.join('\n') + '\n';
}

/** One line naming where the tasks ran, e.g. "docker, Podman Engine 4.3.1, memrl/llb-db-mariadb:latest (sha256:…), server 10.11.6-MariaDB". */
function evaluatorLine(e: EvaluatorFacts): string {
  const parts = [String(e.backend ?? '?')];
  const engine = e.engine as { name?: string; version?: string } | undefined;
  if (engine) parts.push(`${engine.name ?? 'engine'} ${engine.version ?? ''}`.trim());
  const image = e.image as { image?: string; id?: string } | undefined;
  if (image) parts.push(`${image.image} (${String(image.id ?? '').replace(/^sha256:/, '').slice(0, 12)})`);
  if (e.server) parts.push(`server ${String(e.server)}`);
  return parts.join(', ');
}
