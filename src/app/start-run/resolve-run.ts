/**
 * From the command to the run it names: the config (with --pull's missing data first),
 * a resumed run's recorded settings, the method, the run folder, the prompt pack; and
 * the checks that a resume or a replay is the same experiment. Nothing is written yet.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { ResolvedConfig } from '../../config/types.js';
import type { RunJson } from '../../core/run-files/index.js';
import { RunFolder } from '../../runner/run-folder.js';
import { UserError } from '../../util/errors.js';
import { loadConfig } from '../config.js';
import { loadPack, type PackInfo } from '../prompts/pack.js';
import { findBenchmark, findMethod } from '../registry.js';
import { resumedConfig } from '../resume.js';
import { datasetOf, pullMissing } from '../run-data.js';
import { modelLabelOf } from '../run-models.js';
import type { ResolvedRun, RunIo, RunOptions } from './types.js';

export async function resolveRun(options: RunOptions, io: RunIo): Promise<ResolvedRun> {
  const cwd = options.cwd ?? process.cwd();
  const bench = findBenchmark(options.registry, options.benchmark);
  const configFile = typeof options.flags.config === 'string' ? options.flags.config : undefined;
  const configOpts = { registry: options.registry, refuseEmpty: true, ...(options.env ? { env: options.env } : {}), cwd };
  let given = loadConfig(configFile, options.flags, bench.name, configOpts);
  // --pull: the benchmark's missing files first; the config then resolves against them.
  const dataset = datasetOf(bench);
  if (dataset && given.config.memrl.data.auto_pull && (await pullMissing(dataset, io))) given = loadConfig(configFile, options.flags, bench.name, configOpts);
  // A resumed run is the recorded run again: its settings come from its run.json.
  const cfg = given.run.resume
    ? resumedConfig({ registry: options.registry, benchmark: bench.name, flags: options.flags, given, dir: given.run.resume, cwd, ...(options.env ? { env: options.env } : {}) })
    : given;
  const method = findMethod(options.registry, cfg.method);
  const modelLabel = modelLabelOf(cfg.llm);
  const runDir = cfg.run.resume ?? newRunDir(cfg, bench.name, modelLabel);
  // A prompt pack is checked before anything runs; a resumed run must see the same templates.
  const pack = cfg.run.prompts ? loadPack(cfg.run.prompts, options.registry) : null;
  if (cfg.run.resume && new RunFolder(runDir).hasManifest()) checkSamePrompts(new RunFolder(runDir).readManifest(), pack, runDir);

  // Every run records its replies in <runDir>/responses.jsonl; --replay reads another run's recording, offline.
  const replayArg = typeof options.flags.replay === 'string' ? options.flags.replay : undefined;
  const replayFrom = replayArg ? resolve(cwd, replayArg) : null;
  if (replayFrom) {
    const recorded = new RunFolder(replayFrom);
    if (!recorded.hasManifest()) throw new UserError(`--replay ${replayArg}: no run.json there; point --replay at a run folder under results/${bench.name}/`, 'not_a_run_folder');
    checkSameExperiment(recorded.readManifest(), bench.name, cfg, modelLabel, replayFrom, '--replay');
  }
  return { cwd, bench, cfg, method, modelLabel, runDir, runName: basename(runDir) || 'run', pack, replayFrom };
}

/** Slug for folder names: model names carry slashes and colons. */
function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
}

/**
 * A new run's folder name: start time, method, model, seed, and four random hex digits.
 * The suffix keeps names apart when runs start in the same second with the same method,
 * model and seed (a sweep's cells differing in another key, runs in a shell loop): the
 * name is also the run's container label (memrl cleanup --run) and its log file's name,
 * which must not reach another run. A name already in the output folder is not reused.
 */
function newRunDir(cfg: ResolvedConfig, benchName: string, modelLabel: string): string {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  for (;;) {
    const dir = join(cfg.run.outputDir, benchName, `${t}-${cfg.method}-${slug(modelLabel)}-s${cfg.run.seed}-${randomBytes(2).toString('hex')}`);
    if (!existsSync(dir)) return dir;
  }
}

/** The templates a run was started with, by hash: editing a pack between attempts would mix two prompts in one run. */
function checkSamePrompts(manifest: RunJson, pack: PackInfo | null, dir: string): void {
  const recorded = manifest.prompts;
  if (recorded === undefined) return; // a run from before prompt packs (or not started by memrl run): memrl's own templates
  const was = recorded.hash ?? null;
  const now = pack?.hash ?? null;
  if (was !== now) {
    throw new UserError(
      `--resume ${dir}: the prompt pack ${pack ? `${pack.dir} ` : ''}is not the one the run started with (${recorded.name ?? 'memrl'}, ${was ? `sha256 ${was.slice(0, 12)}` : "memrl's own"}); restore its templates, or start a new run`,
      'resume_mismatch',
    );
  }
}

/** A resumed (or replayed) run must be the same experiment: refuse silently mixing settings. */
function checkSameExperiment(manifest: RunJson, name: string, cfg: ResolvedConfig, model: string, dir: string, flag = '--resume'): void {
  const want: Pick<RunJson, 'benchmark' | 'method' | 'model' | 'seed'> = { benchmark: name, method: cfg.method, model, seed: cfg.run.seed };
  for (const k of ['benchmark', 'method', 'model', 'seed'] as const) {
    if (manifest[k] !== want[k]) {
      throw new UserError(`${flag} ${dir}: the run used ${k}=${String(manifest[k])} but this command gives ${String(want[k])}; repeat the original command with ${flag}`, 'resume_mismatch');
    }
  }
}
