/**
 * Fidelity check of the os tasks: for every task, in a fresh environment, run the
 * init script, the ground-truth script, then the evaluation script (must exit 0);
 * and, in another fresh environment, init then the evaluation script alone (must
 * NOT exit 0: a check that passes untouched is vacuous).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../util/errors.js';
import { llbFilePath } from './data-files.js';
import { openEnv } from '../../env/registry.js';
import type { ShellEnvironment, ShellSettings } from '../../env/shell/contract.js';

export interface OsGoldTask {
  id: string;
  init: string;
  evaluation: string;
  groundTruth: string;
}

export interface OsGoldResult {
  total: number;
  /** Ground truth then evaluation exits 0. */
  passed: number;
  failedIds: string[];
  /** Evaluation exits 0 without the ground truth (should be 0). */
  vacuous: number;
  vacuousIds: string[];
  /** Tasks whose run threw (sandbox failure); counted as failed too. */
  errors: { id: string; message: string }[];
  durationMs: number;
}

export interface CheckGoldOsOptions {
  limit?: number;
  ids?: string[];
  concurrency?: number;
  /** Default: the release's os_interaction_runtime_learning_data.json (memrl data pull llb). */
  file?: string;
  env?: ShellSettings;
  /** Where each task runs (default: the local sandbox with `env`); e.g. a container factory. */
  create?: () => Promise<ShellEnvironment>;
  onProgress?: (done: number, total: number, id: string, ok: boolean) => void;
}

export function defaultOsGoldFile(): string {
  return llbFilePath('os_interaction_runtime_learning_data.json');
}

interface RawOsEntry {
  initialization_command_item?: { script?: string } | null;
  evaluation_info?: {
    evaluation_command_item?: { script?: string } | null;
    ground_truth_command_item?: { script?: string } | null;
  };
}

/** Tasks of an os_interaction JSON file (object keyed by sample index), keys sorted as strings like LLB. */
export function loadOsGoldTasks(file = defaultOsGoldFile()): OsGoldTask[] {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, RawOsEntry>;
  return Object.keys(data)
    .sort()
    .map((id) => {
      const e = data[id]!;
      const evaluation = e.evaluation_info?.evaluation_command_item?.script;
      const groundTruth = e.evaluation_info?.ground_truth_command_item?.script;
      if (typeof evaluation !== 'string' || typeof groundTruth !== 'string') {
        throw new UserError(`${file}: entry ${id} has no evaluation/ground-truth script (Python-repr file? use *_runtime_learning_data.json)`);
      }
      return { id, init: e.initialization_command_item?.script ?? '', evaluation, groundTruth };
    });
}

/** One task: [ground truth passes, untouched passes]. `env`: local sandbox options, or a factory of environments. */
export async function checkOneOsTask(
  task: OsGoldTask,
  env?: ShellSettings | (() => Promise<ShellEnvironment>),
): Promise<{ gold: boolean; untouched: boolean }> {
  const create = typeof env === 'function' ? env : async () => (await openEnv('shell', 'local', env ?? {})).create();
  const run = async (withGold: boolean): Promise<boolean> => {
    const os = await create();
    try {
      await os.init(task.init);
      if (withGold) await os.exec(task.groundTruth, 60);
      return await os.check(task.evaluation);
    } finally {
      await os.dispose();
    }
  };
  const gold = await run(true);
  const untouched = await run(false);
  return { gold, untouched };
}

export async function checkGoldOs(opts: CheckGoldOsOptions = {}): Promise<OsGoldResult> {
  const started = Date.now();
  let tasks = loadOsGoldTasks(opts.file);
  if (opts.ids?.length) {
    const want = new Set(opts.ids);
    tasks = tasks.filter((t) => want.has(t.id));
  }
  if (opts.limit !== undefined) tasks = tasks.slice(0, opts.limit);
  const res: OsGoldResult = { total: tasks.length, passed: 0, failedIds: [], vacuous: 0, vacuousIds: [], errors: [], durationMs: 0 };
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      let ok = false;
      try {
        const r = await checkOneOsTask(task, opts.create ?? opts.env);
        ok = r.gold;
        if (r.gold) res.passed++;
        else res.failedIds.push(task.id);
        if (r.untouched) {
          res.vacuous++;
          res.vacuousIds.push(task.id);
        }
      } catch (err) {
        res.failedIds.push(task.id);
        res.errors.push({ id: task.id, message: (err as Error).message });
      }
      opts.onProgress?.(++done, tasks.length, task.id, ok);
    }
  };
  const n = Math.max(1, Math.min(opts.concurrency ?? 2, tasks.length || 1));
  await Promise.all(Array.from({ length: n }, worker));
  const byIndex = (a: string, b: string): number => Number(a) - Number(b) || a.localeCompare(b);
  res.failedIds.sort(byIndex);
  res.vacuousIds.sort(byIndex);
  res.durationMs = Date.now() - started;
  return res;
}
