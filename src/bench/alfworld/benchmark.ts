/** ALFWorld (or its offline stand-in) ready to run: games through a pool of Python bridges. */
import { packNamespace } from '../../util/template.js';
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { UserError } from '../../util/errors.js';
import { sha256File } from '../../util/fs.js';
import type { Benchmark } from '../../core/benchmark.js';
import type { Fidelity } from '../../util/fidelity.js';
import type { DockerSettings, ResolvedConfig } from '../../config/types.js';
import { REAL_ALFWORLD_IMAGE, STANDIN_IMAGE, type AlfworldSettings } from './config.js';
import { BridgeFault, BridgePool, BridgeRequestError, containerBridgeTransport, type AlfworldEnvKind, type BridgeOptions } from './bridge-client.js';
import { defaultListingCache, loadAlfworld, loadExamples, type AlfworldLoadOptions, type AlfworldTask, type FewShotExamples } from './dataset.js';
import { runAlfworldEpisode } from './episode.js';
import { alfworldSimPlayer, SimChannel } from './sim-player.js';

export const STANDIN_LABEL = 'household-standin';
export const INSTALL_COMMANDS = 'pip install alfworld && alfworld-download';

export interface AlfworldBenchmarkOptions {
  env: AlfworldEnvKind;
  load: Omit<AlfworldLoadOptions, 'envLabel' | 'listingIdentity'>;
  bridge: Omit<BridgeOptions, 'env' | 'config'> & { envConfigPath?: string };
  /** Bridges run at once (the run's concurrency). */
  poolSize: number;
  /** --evaluator docker: each bridge runs in a container of docker.images.alfworld (for the stand-in too). */
  docker?: DockerSettings | null;
  fewShotPath: string;
  maxSteps: number;
  temperature: number;
  maxTokens?: number;
  promptDir?: string;
  /** The run's fidelity switches (default: the reference's behaviour). */
  fidelity?: Fidelity;
}

export type AlfworldBenchmark = Benchmark<AlfworldTask> & { pool: BridgePool; close(): Promise<void> };

/** ALFWorld's environment YAML as an object (the real env only). */
function readEnvConfig(path: string | undefined): unknown {
  if (!path || !existsSync(path)) {
    throw new UserError(`environment.alfworld_config_path: ${path ?? '(unset)'} does not exist; give ALFWorld's environment YAML (e.g. base_config.yaml from the alfworld repository) with --env-config or environment.alfworld_config_path`);
  }
  try {
    return parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UserError(`environment.alfworld_config_path: ${path} is not valid YAML (${(err as Error).message})`);
  }
}

export function createAlfworldBenchmark(opts: AlfworldBenchmarkOptions): AlfworldBenchmark {
  const envLabel = opts.env === 'standin' ? STANDIN_LABEL : 'alfworld';
  const config = opts.env === 'alfworld' ? readEnvConfig(opts.bridge.envConfigPath) : undefined;
  const poolSize = Math.max(1, opts.poolSize);
  const image = opts.docker?.images.alfworld;
  const transport = opts.docker ? containerBridgeTransport({ settings: opts.docker, concurrency: poolSize, image: image!, extraEnv: opts.bridge.extraEnv }) : undefined;
  const pool = new BridgePool({ ...opts.bridge, env: opts.env, config, ...(transport ? { transport } : {}) }, poolSize);
  const where = transport ? `in the image ${image}` : `for ${opts.bridge.python ?? 'python3'}`;
  const missing = transport
    ? `--env alfworld: the alfworld Python package is not installed in the image ${image}; build the ALFWorld image with: bash scripts/build-images.sh alfworld (docker/alfworld.Dockerfile), or set memrl.evaluator.docker.images.alfworld (or run the offline stand-in with --env standin)`
    : `--env alfworld: the alfworld Python package is not installed ${where}; install it and its game data with: ${INSTALL_COMMANDS} (or run the offline stand-in with --env standin)`;
  const sim = new SimChannel();
  let examples: FewShotExamples | undefined;
  return {
    name: 'alfworld',
    envLabel,
    // The reference's names for ALFWorld's two validation sets.
    validSetLabel: opts.load.validSplit === 'valid_unseen' ? 'eval_out_of_distribution' : 'eval_in_distribution',
    pool,
    load: async () => {
      examples = loadExamples(opts.fewShotPath);
      return pool.use(async (bridge) => {
        try {
          // The stand-in lists in milliseconds; real ALFWorld listings are cached.
          const real = opts.env === 'alfworld';
          const listingCache = real ? (opts.load.listingCache === undefined ? defaultListingCache() : opts.load.listingCache) : null;
          const listingIdentity = listingCache
            ? { envType: opts.bridge.envType ?? 'AlfredTWEnv', config, image: transport ? (await (await transport).describe()).imageId : null }
            : null;
          const loaded = await loadAlfworld(bridge, { ...opts.load, envLabel, listingCache, listingIdentity });
          // The few-shot examples are data the prompts are made of: recorded after the game list.
          return { ...loaded, sources: [...loaded.sources, { path: opts.fewShotPath, sha256: sha256File(opts.fewShotPath) }] };
        } catch (err) {
          // The bridge says 'missing_alfworld' when `import alfworld` fails, wherever the listing asked.
          if ((err instanceof UserError || err instanceof BridgeRequestError) && err.code === 'missing_alfworld') throw new UserError(missing, 'missing_alfworld');
          if (err instanceof BridgeRequestError) throw new UserError(`ALFWorld bridge: ${err.message}`);
          if (err instanceof BridgeFault) throw new UserError(`ALFWorld bridge: ${err.message}`);
          throw err;
        }
      });
    },
    episode: (task, ctx) => {
      if (!examples) examples = loadExamples(opts.fewShotPath);
      return runAlfworldEpisode(task, ctx, {
        pool,
        examples,
        maxSteps: opts.maxSteps,
        temperature: opts.temperature,
        maxTokens: opts.maxTokens,
        promptDir: opts.promptDir,
        fidelity: opts.fidelity,
        sim,
      });
    },
    simPlayer: (tasks) => alfworldSimPlayer(tasks, sim),
    describeEvaluator: async () => ({
      kind: 'alfworld-bridge',
      env: envLabel,
      ...(opts.env === 'standin' ? { note: 'offline household stand-in, not ALFWorld' } : { envType: opts.bridge.envType, envConfig: opts.bridge.envConfigPath }),
      ...(transport ? { python: 'python3' } : { backend: 'local', python: opts.bridge.python ?? 'python3' }),
      ...(transport ? await (await transport).describe() : {}),
      maxSteps: opts.maxSteps,
      bridges: poolSize,
    }),
    close: () => pool.close(),
  };
}

/**
 * The stand-in needs only python3: while images.alfworld is left at the real ALFWorld
 * image (the default), stand-in runs use the small stand-in image instead.
 */
export function dockerSettingsFor(s: AlfworldSettings, d: DockerSettings): DockerSettings {
  if (s.env !== 'standin' || d.images.alfworld !== REAL_ALFWORLD_IMAGE) return d;
  return { ...d, images: { ...d.images, alfworld: STANDIN_IMAGE } };
}

/** The benchmark for one `memrl run alfworld`, from its resolved settings. */
export function createAlfworldRun(a: AlfworldSettings, cfg: ResolvedConfig<AlfworldSettings>): AlfworldBenchmark {
  return createAlfworldBenchmark(alfworldRunOptions(a, cfg));
}

/** What a `memrl run alfworld` plays and how it prompts (also what --dry-run reads). */
export function alfworldRunOptions(a: AlfworldSettings, cfg: ResolvedConfig<AlfworldSettings>): AlfworldBenchmarkOptions {
  return {
    env: a.env,
    load: {
      validSplit: a.validSplit,
      validate: cfg.run.runValidation,
      gameFile: a.gameFile,
      datasetRatio: a.datasetRatio,
      seed: cfg.run.seed,
      limit: cfg.run.limit,
    },
    bridge: {
      seed: cfg.run.seed,
      envType: a.envType,
      envConfigPath: a.envConfigPath,
      gamesPerType: a.gamesPerType,
      python: a.python,
      timeoutMs: a.bridgeTimeoutS * 1000,
    },
    poolSize: cfg.run.concurrency,
    docker: cfg.evaluator.backend === 'docker' ? dockerSettingsFor(a, cfg.evaluator.docker) : null,
    fewShotPath: a.fewShotPath,
    maxSteps: cfg.run.maxSteps,
    temperature: cfg.llm.temperature,
    maxTokens: cfg.llm.maxTokens ?? undefined,
    promptDir: packNamespace(cfg.run.prompts, 'alfworld'),
    fidelity: cfg.fidelity,
  };
}
