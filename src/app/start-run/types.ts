/** The shapes `startRun` takes and returns, and the resolved run its steps share. */
import type { FlagValues } from '../../config/flags.js';
import type { Env } from '../../config/interpolate.js';
import type { ResolvedConfig } from '../../config/types.js';
import type { BenchmarkModule } from '../../core/benchmark.js';
import type { MethodModule } from '../../core/method.js';
import type { ReporterMap } from '../../core/reporter.js';
import type { BudgetHit, SpendMeter } from '../../llm/budget.js';
import type { RateGateFactory } from '../../llm/rate-gate.js';
import type { EpisodeDispatcher } from '../../runner/remote-episodes.js';
import type { RunResult } from '../../runner/run.js';
import type { Slots } from '../../util/slots.js';
import type { PackInfo } from '../prompts/pack.js';
import type { Registry } from '../registry.js';

export interface RunOptions {
  benchmark: string;
  /** Flag values as `memrl run <benchmark>` parses them (camelCase names; unset = absent). */
  flags: FlagValues;
  registry: Registry;
  env?: Env;
  cwd?: string;
  /** The command line, recorded in run.json. */
  command?: readonly string[];
  /** Replace or add reporters (e.g. drop the console in a test). */
  reporters?: (defaults: ReporterMap) => ReporterMap;
  /** Episode slots shared with other runs in this process (a sweep's one budget). */
  episodeSlots?: Slots;
  /** Where endpoint rate limits are kept (default: this process; `--queue`: Redis, shared with the workers). */
  rateGates?: RateGateFactory;
  /** A budget shared with other runs (a sweep's --budget-usd): what they spent counts against this run's limit; `meter` hands over this run's. */
  sharedBudget?: { othersUsd(): number; meter(meter: SpendMeter): void };
  /** Play the episodes elsewhere (`--queue`): opened once the run folder is known, closed when the run ends. */
  episodeQueue?: (run: { runDir: string; benchmark: string; config: ResolvedConfig['config'] }) => Promise<EpisodeDispatcher>;
}

export interface RunIo {
  /** Terminal lines (banner, notes, epoch lines, budget stops). */
  err(text: string): void;
  /** A terminal that can show a progress bar. */
  tty: boolean;
}

export interface RunEnd {
  result: RunResult | null;
  /** The budget limit that stopped the run, if one did (the run is resumable). */
  budget: BudgetHit | null;
  /** Why a budget stop cut a step the runner could not interrupt cleanly. */
  budgetCut?: string;
}

export interface RunHandle {
  readonly benchmark: string;
  readonly runDir: string;
  readonly config: ResolvedConfig;
  /** Stop after the running episodes; finished ones are kept and --resume continues. */
  stop(): void;
  readonly done: Promise<RunEnd>;
}

/** What the command resolves to before anything is built: every later step reads it. */
export interface ResolvedRun {
  cwd: string;
  bench: BenchmarkModule;
  cfg: ResolvedConfig;
  method: MethodModule;
  /** The chat model as labelled in folder names and the banner. */
  modelLabel: string;
  /** New, or the one resumed. */
  runDir: string;
  /** The folder's name: its id in logs and container labels. */
  runName: string;
  pack: PackInfo | null;
  /** --replay: the run folder whose recorded replies this run reads. */
  replayFrom: string | null;
}
