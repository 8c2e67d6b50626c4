/**
 * Gold check: run every canonical solution through the evaluator. It measures the
 * evaluation environment (libraries, versions, sandbox), not a model: tasks whose
 * own solution fails here cannot be solved by any model on this machine.
 */
import type { DockerSettings } from '../../config/types.js';
import { mapPoolByGroup } from '../../util/group-pool.js';
import { UserError } from '../../util/errors.js';
import { compareTaskIds, pulledBcbDataPath, readBcbTasks, readHardIds, type BcbSubset, type BcbTask } from './dataset.js';
import { importGroup, type BcbEvalMode, type BcbEvalResult } from './evaluate.js';
import { createBcbEvaluator, defaultDockerSettings, type BcbBackend, type BcbEvaluator } from './evaluator.js';
import { goldDurationsPath, readGoldDurations, readShippedGoldDurations, recordGoldDurations, slowestFirst } from './gold-durations.js';

export interface CheckGoldOptions {
  subset: BcbSubset;
  mode: BcbEvalMode;
  concurrency: number;
  dataPath?: string;
  /** Only these ids ("BigCodeBench/13" or just "13"). */
  ids?: string[];
  /** First N tasks (by id number) after the subset/ids filter. */
  limit?: number;
  timeoutSec?: number;
  /** Local interpreter (local backend only). */
  python?: string;
  /** Tests in children of warm fork servers (default true) or a fresh interpreter each (false). */
  forkServer?: boolean;
  /** Where the gold solutions run (default local); ignored when `evaluator` is given. */
  backend?: BcbBackend;
  /** memrl.evaluator.docker for the docker backend (default: memrl's defaults). */
  docker?: DockerSettings;
  /** A ready evaluator (tests); the caller closes it. */
  evaluator?: BcbEvaluator;
  signal?: AbortSignal;
  onResult?: (result: GoldTaskResult, done: number, total: number) => void;
  /**
   * Where the durations of earlier checks are kept (gold-durations.ts): the slowest
   * tasks start first and this check's durations are added. Default: the cache file
   * of the backend; null: tasks start in id order and nothing is kept.
   */
  durationsPath?: string | null;
  /**
   * Tasks this machine has not timed yet take their place from the durations shipped
   * with memrl (data/bcb-gold-durations.json), so that a first check starts the slowest
   * first too (default true; false: such tasks count as the median of the kept ones).
   */
  shippedDurations?: boolean;
}

/** Why a gold solution failed, guessed from its first error line. */
export type GoldFailureCategory = 'missing_library' | 'nltk_data' | 'network' | 'timeout' | 'harness' | 'other';

export interface GoldTaskResult {
  id: string;
  status: BcbEvalResult['status'];
  firstError?: string;
  durationMs: number;
  testsRun?: number;
  category?: GoldFailureCategory;
}

export interface GoldReport {
  benchmark: 'bcb';
  subset: BcbSubset;
  mode: BcbEvalMode;
  /** local (bubblewrap) or docker. */
  backend: BcbBackend;
  /** The container image (docker backend). */
  image?: { name: string; id: string };
  dataPath: string;
  dataSha256: string;
  python: string;
  pythonVersion: string | null;
  /** Modules BigCodeBench uses that the sandbox's Python lacks. */
  missingLibs: string[];
  total: number;
  passed: number;
  passRate: number;
  byStatus: Record<string, number>;
  byCategory: Record<string, number>;
  medianMs: number;
  wallMs: number;
  failing: GoldTaskResult[];
  results: GoldTaskResult[];
}

/** The program a correct reference-mode answer looks like: imports and signature, then the body. */
export function goldSolution(task: Pick<BcbTask, 'code_prompt' | 'canonical_solution'>): string {
  return `${task.code_prompt}${task.canonical_solution}`;
}

export function normalizeTaskId(id: string): string {
  const t = id.trim();
  return /^\d+$/.test(t) ? `BigCodeBench/${t}` : t;
}

const NETWORK_ERRORS =
  /ConnectionError|NewConnectionError|Max retries exceeded|URLError|gaierror|Name or service not known|Temporary failure in name resolution|Network is unreachable|nodename nor servname/i;

export function categorizeFailure(r: Pick<GoldTaskResult, 'status' | 'firstError'>): GoldFailureCategory | undefined {
  if (r.status === 'pass') return undefined;
  if (r.status === 'timeout') return 'timeout';
  if (r.status === 'error') return 'harness';
  const e = r.firstError ?? '';
  if (/ModuleNotFoundError|No module named/.test(e)) return 'missing_library';
  if (/LookupError: Resource|nltk_data|nltk\.download/.test(e)) return 'nltk_data';
  if (NETWORK_ERRORS.test(e)) return 'network';
  return 'other';
}

function selectTasks(all: BcbTask[], opts: CheckGoldOptions): BcbTask[] {
  let tasks = [...all].sort((a, b) => compareTaskIds(a.id, b.id));
  if (opts.subset === 'hard') {
    const { ids } = readHardIds();
    tasks = tasks.filter((t) => ids.has(t.id));
  }
  if (opts.ids && opts.ids.length > 0) {
    const wanted = opts.ids.map(normalizeTaskId);
    const have = new Set(tasks.map((t) => t.id));
    const unknown = wanted.filter((id) => !have.has(id));
    if (unknown.length > 0) {
      throw new UserError(`unknown task id${unknown.length > 1 ? 's' : ''} for subset ${opts.subset}: ${unknown.slice(0, 5).join(', ')}`);
    }
    const keep = new Set(wanted);
    tasks = tasks.filter((t) => keep.has(t.id));
  }
  if (opts.limit !== undefined) tasks = tasks.slice(0, opts.limit);
  return tasks;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function countBy<T>(items: T[], key: (item: T) => string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    if (k !== undefined) out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

export async function checkGoldBcb(opts: CheckGoldOptions): Promise<GoldReport> {
  if (!(Number.isInteger(opts.concurrency) && opts.concurrency >= 1)) throw new UserError(`concurrency must be a positive integer, got ${opts.concurrency}`);
  if (opts.limit !== undefined && !(Number.isInteger(opts.limit) && opts.limit >= 1)) throw new UserError(`limit must be a positive integer, got ${opts.limit}`);
  const { tasks: all, source } = readBcbTasks(opts.dataPath ?? pulledBcbDataPath());
  const tasks = selectTasks(all, opts);

  const evaluator =
    opts.evaluator ??
    createBcbEvaluator({
      backend: opts.backend ?? 'local',
      docker: opts.docker ?? defaultDockerSettings(),
      concurrency: opts.concurrency,
      ...(opts.timeoutSec !== undefined ? { timeoutSec: opts.timeoutSec } : {}),
      ...(opts.python ? { python: opts.python } : {}),
      ...(opts.forkServer !== undefined ? { forkServer: opts.forkServer } : {}),
    });
  try {
    return await runGold(evaluator, tasks, source, opts);
  } finally {
    if (!opts.evaluator) await evaluator.close();
  }
}

async function runGold(evaluator: BcbEvaluator, tasks: BcbTask[], source: { path: string; sha256: string }, opts: CheckGoldOptions): Promise<GoldReport> {
  // Throws a UserError (no sandbox, no engine, no image, core libraries missing) before any task runs.
  const facts = await evaluator.preflight();

  const durationsPath = opts.durationsPath === undefined ? goldDurationsPath(facts.backend) : opts.durationsPath;
  const order =
    durationsPath === null ? tasks : slowestFirst(tasks, readGoldDurations(durationsPath), opts.shippedDurations === false ? {} : readShippedGoldDurations());

  const started = Date.now();
  let done = 0;
  // Tasks with the same imports go to the same worker, so that its fork server imports them once.
  const finished = await mapPoolByGroup(order, opts.concurrency, importGroup, async (task, placement) => {
    const verdict = await evaluator.evaluate(task, goldSolution(task), {
      mode: opts.mode,
      placement,
      ...(opts.timeoutSec !== undefined ? { timeoutSec: opts.timeoutSec } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const result: GoldTaskResult = {
      id: task.id,
      status: verdict.status,
      durationMs: verdict.durationMs,
      ...(verdict.firstError ? { firstError: verdict.firstError } : {}),
      ...(verdict.testsRun !== undefined ? { testsRun: verdict.testsRun } : {}),
    };
    const category = categorizeFailure(result);
    if (category) result.category = category;
    done++;
    opts.onResult?.(result, done, tasks.length);
    return result;
  });
  const wallMs = Date.now() - started;
  // The report lists them in id order, whatever order they ran in.
  const byId = new Map(finished.map((r) => [r.id, r]));
  const results = tasks.map((t) => byId.get(t.id) as GoldTaskResult);
  if (durationsPath !== null && !opts.signal?.aborted) {
    recordGoldDurations(durationsPath, tasks, new Map(results.map((r) => [r.id, r.durationMs])));
  }

  const passed = results.filter((r) => r.status === 'pass').length;
  const failing = results.filter((r) => r.status !== 'pass');
  return {
    benchmark: 'bcb',
    subset: opts.subset,
    mode: opts.mode,
    backend: facts.backend,
    ...(facts.image ? { image: facts.image } : {}),
    dataPath: source.path,
    dataSha256: source.sha256,
    python: facts.python,
    pythonVersion: facts.pythonVersion,
    missingLibs: facts.missingLibs,
    total: results.length,
    passed,
    passRate: results.length ? passed / results.length : 0,
    byStatus: countBy(results, (r) => r.status),
    byCategory: countBy(failing, (r) => r.category),
    medianMs: median(results.map((r) => r.durationMs)),
    wallMs,
    failing,
    results,
  };
}
