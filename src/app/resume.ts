/**
 * Resuming a run takes its settings from the run itself. `--resume <dir>` alone is
 * enough: the resolved config recorded in <dir>/run.json is the config again (secrets,
 * redacted there, come back from the environment or the --config given). A flag or a
 * config key that contradicts the recorded run is refused in one line, except those
 * that may change without changing the experiment (RESUMABLE_KEYS); fewer epochs than
 * the run has already completed is refused too.
 */
import { join } from 'node:path';
import type { FlagValues } from '../config/flags.js';
import { flagOverlay } from '../config/flags.js';
import type { Env } from '../config/interpolate.js';
import { loadConfig as loadConfigFor } from '../config/load.js';
import { REDACTED, redactUrlCredentials } from '../config/redact.js';
import { runFlagsFor } from '../config/run-flags.js';
import type { ConfigTree, ResolvedConfig } from '../config/types.js';
import { RunFolder } from '../runner/run-folder.js';
import { UserError } from '../util/errors.js';
import type { Registry } from './registry.js';

/** Keys a resumed run may change: speed, spending and where replies are cached, never what is measured. */
export const RESUMABLE_KEYS: readonly string[] = [
  'experiment.num_sections', // more epochs extend the run (never fewer than completed)
  'experiment.ckpt_resume_enabled',
  'experiment.ckpt_resume_path',
  'experiment.ckpt_resume_epoch',
  'experiment.output_dir',
  'experiment.log_level',
  'memrl.concurrency',
  'memrl.budget.usd',
  'memrl.budget.tokens',
  'memrl.prices',
  'memrl.cache_dir',
  'memrl.data.auto_pull',
  'memrl.max_error_rate',
  'memrl.plugins',
  'memrl.log_dir',
  'memrl.llm.timeout_ms',
  'memrl.llm.max_retries',
  'memrl.llm.stop_after_failures',
  'memrl.llm.rate_limit',
];

export interface ResumeInput {
  registry: Registry;
  benchmark: string;
  flags: FlagValues;
  /** The config as the command line alone resolves it (file or quickstart + flags). */
  given: ResolvedConfig;
  dir: string;
  env?: Env;
  cwd: string;
}

/** The config of the run in `dir`, with the allowed changes of this command applied. */
export function resumedConfig(input: ResumeInput): ResolvedConfig {
  const { dir, given, registry } = input;
  const folder = new RunFolder(dir);
  if (!folder.hasManifest()) throw new UserError(`--resume ${dir}: no run.json there; point --resume at a run folder under results/${input.benchmark}/`, 'not_a_run_folder');
  const manifest = folder.readManifest();
  if (manifest.benchmark !== input.benchmark) {
    throw new UserError(`--resume ${dir}: that is a ${manifest.benchmark} run; resume it with: memrl run ${manifest.benchmark} --resume ${dir}`, 'resume_mismatch');
  }
  const recorded = manifest.config;
  if (!recorded) {
    throw new UserError(`--resume ${dir}: run.json records no config (written by an older memrl); rerun the original command with --resume ${dir}`, 'resume_mismatch');
  }
  // What this command sets explicitly: its flags, and the keys of a --config file.
  const part = registry.benchmarks.find((b) => b.name === input.benchmark)!;
  const defs = runFlagsFor(part, registry.methods.map((m) => m.name));
  const overlay = flagOverlay(input.flags, defs);
  const explicit = new Map<string, string>();
  for (const key of leafKeys(overlay.data)) explicit.set(key, overlay.optionFor(key.split('.')) ?? key);
  for (const key of given.fileKeys) if (!explicit.has(key)) explicit.set(key, `${given.source}: ${key}`);

  const conflicts: string[] = [];
  for (const [key, who] of explicit) {
    // A key may change (rotation); an endpoint setting the run never used (sim, local) was not recorded.
    if (RESUMABLE_KEYS.includes(key) || /(^|\.)api_key$/.test(key)) continue;
    const was = valueAt(recorded, key);
    const now = valueAt(given.config, key);
    if (was === undefined || isRedacted(was) || JSON.stringify(was) === JSON.stringify(now)) continue;
    conflicts.push(`${who} gives ${key} ${shown(now)} but the run used ${shown(was)}`);
  }
  if (conflicts.length) {
    throw new UserError(
      `--resume ${dir}: ${conflicts.join('; ')}; a resumed run keeps its own settings (run.json): drop ${conflicts.length === 1 ? 'it' : 'them'}, or start a new run. ` +
        `May change on resume: --epochs (more), --concurrency, --budget-usd, --budget-tokens, --prices, --cache, --rate-limit`,
      'resume_mismatch',
    );
  }

  // The recorded tree, its redacted secrets taken from this command's config, this command's allowed changes on top.
  const tree = withSecrets(recorded, given.config as unknown as ConfigTree);
  for (const key of RESUMABLE_KEYS) if (explicit.has(key)) setAt(tree, key, valueAt(given.config, key));
  setAt(tree, 'experiment.ckpt_resume_enabled', true);
  setAt(tree, 'experiment.ckpt_resume_path', dir);
  const cfg = loadConfigFor(registry, undefined, {}, input.benchmark, {
    data: { tree, label: join(dir, 'run.json') },
    // The recorded config's relative paths are relative to where the run started.
    cwd: manifest.cwd ?? input.cwd,
    ...(input.env ? { env: input.env } : {}),
  });

  const done = folder.readCheckpoint()?.epochCompleted ?? 0;
  if (cfg.run.epochs < done) {
    throw new UserError(`--resume ${dir}: the run has completed ${done} epoch(s); --epochs ${cfg.run.epochs} would undo them: give --epochs ${done + 1} or more to extend it`, 'resume_mismatch');
  }
  return cfg;
}

/** A value for a message: URLs without their credentials. */
function shown(v: unknown): string {
  return JSON.stringify(typeof v === 'string' ? redactUrlCredentials(v) : v);
}

function isRedacted(v: unknown): boolean {
  return typeof v === 'string' && v.includes(REDACTED);
}

/** A copy of `tree` whose redacted strings come from `source` at the same key. */
function withSecrets(tree: ConfigTree, source: ConfigTree): ConfigTree {
  const out: ConfigTree = {};
  for (const [k, v] of Object.entries(tree)) {
    const s = source?.[k];
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) out[k] = withSecrets(v as ConfigTree, (s ?? {}) as ConfigTree);
    else out[k] = isRedacted(v) ? s : v;
  }
  return out;
}

function leafKeys(data: unknown, prefix = ''): string[] {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return prefix ? [prefix] : [];
  return Object.entries(data).flatMap(([k, v]) => leafKeys(v, prefix ? `${prefix}.${k}` : k));
}

function valueAt(tree: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, k) => (node !== null && typeof node === 'object' ? (node as ConfigTree)[k] : undefined), tree);
}

function setAt(tree: ConfigTree, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = tree;
  for (const k of parts.slice(0, -1)) node = (node[k] ??= {}) as ConfigTree;
  node[parts.at(-1)!] = value;
}
