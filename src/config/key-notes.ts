/**
 * Keys that are accepted but do nothing, and keys that only one benchmark reads.
 * `memrl config` prints the ones present in a file so nobody tunes a dead knob.
 */
import type { BenchmarkConfigPart } from './types.js';

/** Accepted for compatibility with the reference's files; no effect in memrl. */
export const INERT_KEYS: Readonly<Record<string, string>> = {
  'rl_config.novelty_threshold': 'never read by the reference',
  'rl_config.reward_merge_gain': 'never read by the reference',
  'rl_config.gamma': 'the Q update is single-step; only 0 is accepted',
  'memory.confidence_threshold': 'never read by the reference; Phase A uses rl_config.sim_threshold',
  'memory.mos_config_path': 'MemOS storage config of the reference; memrl keeps memory in-process',
  'memory.user_id': 'MemOS user id of the reference; runs are separated by output directory',
  'memory.max_keywords': 'only used by the reference\'s avefact retrieval, which memrl does not implement',
  'memory.memory_confidence': 'MemOS metadata in the reference; no effect on retrieval or Q',
  'memory.retrieve_strategy': 'only `query` is implemented (other values are rejected)',
  'memory.checkpoint_path': 'reference checkpoints cannot be loaded; use --resume <run-dir>',
  'experiment.bon': 'best-of-N evaluation was never wired up in the reference',
  'experiment.test_interval': 'never read by the reference (there is no test set)',
  'experiment.mode': 'memrl always trains, then validates if enabled',
  'experiment.baseline_k': 'baselines run for experiment.num_sections epochs like every other method',
  'experiment.ckpt_eval_path': 'checkpoint evaluation is not supported',
  'experiment.trace_jsonl_path': 'memrl always writes per-episode records in the run directory',
  'experiment.trace_sample_filter': 'see experiment.trace_jsonl_path',
  'experiment.save_trajectories': 'memrl always saves trajectories',
  'experiment.save_memories': 'memrl always saves memory snapshots (resume needs them)',
  'experiment.enable_logging': 'memrl always writes its log',
  project_name: 'a label',
  version: 'a label',
};

type ScopePart = Pick<BenchmarkConfigPart, 'name' | 'keys' | 'configSection'>;

function matches(pattern: string, path: string): boolean {
  return pattern === path || (pattern.endsWith('.') && path.startsWith(pattern));
}

/**
 * Benchmarks that read `path`, or null when every registered one does. A key is
 * scoped when some benchmark claims it (its `keys.reads`, or its own memrl.<name>
 * section): then only the claimants read it. Otherwise everyone reads it except the
 * benchmarks that list it in `keys.ignores`.
 */
export function scopeOf(path: string, parts: readonly ScopePart[]): string[] | null {
  const claims = (p: ScopePart): boolean =>
    (p.configSection !== undefined && matches(`memrl.${p.name}.`, path)) || (p.keys?.reads ?? []).some((k) => matches(k, path));
  const claimants = parts.filter(claims).map((p) => p.name);
  if (claimants.length) return claimants;
  const ignoring = new Set(parts.filter((p) => (p.keys?.ignores ?? []).some((k) => matches(k, path))).map((p) => p.name));
  return ignoring.size ? parts.map((p) => p.name).filter((n) => !ignoring.has(n)) : null;
}

/** Leaf paths ("a.b.c") of a plain object, in document order. */
export function leafPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return prefix ? [prefix] : [];
  const out: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const isSection = child !== null && typeof child === 'object' && !Array.isArray(child);
    out.push(...(isSection ? leafPaths(child, path) : [path]));
  }
  return out;
}

export interface KeyNotes {
  /** Inert keys present in the file, with the reason. */
  inert: { key: string; reason: string }[];
  /** Keys present in the file that this benchmark does not read. */
  unusedHere: string[];
}

export function keyNotes(fileData: unknown, benchmark: string, parts: readonly ScopePart[]): KeyNotes {
  const notes: KeyNotes = { inert: [], unusedHere: [] };
  for (const path of leafPaths(fileData)) {
    const reason = INERT_KEYS[path];
    if (reason) {
      notes.inert.push({ key: path, reason });
      continue;
    }
    const scope = scopeOf(path, parts);
    if (scope && !scope.includes(benchmark)) notes.unusedHere.push(path);
  }
  return notes;
}
