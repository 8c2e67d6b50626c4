/**
 * Real runs for compare tests (the runner, memory engine and sim model on the toy
 * benchmark: milliseconds each) and the compare command driven through commander
 * the way src/cli/main.ts drives it.
 */
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import pino from 'pino';
import { registerCompareCommand } from '../../src/cli/commands/compare.js';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import type { ChatModel } from '../../src/llm/types.js';
import { SimChatModel } from '../../src/llm/sim/model.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import { runBenchmark } from '../../src/runner/run.js';
import { UserError } from '../../src/util/errors.js';
import { toyBenchmark, type ToyOptions } from '../helpers/toy-benchmark.js';
import { tempDir } from '../helpers/temp.js';

export const root = tempDir('memrl-compare-');
let n = 0;

export interface ToyRunOptions extends ToyOptions {
  method?: string;
  seed?: number;
  epochs?: number;
  /** Rename the benchmark (a "different benchmark" with the same tasks). */
  name?: string;
  /** Record the run as made by a real (non-simulated) model. */
  real?: boolean;
  runValidation?: boolean;
  /** Folder name under the test root (default run-N). */
  dirName?: string;
}

/** Make one real run of the toy benchmark; returns its run folder. */
export async function toyRun(o: ToyRunOptions = {}): Promise<string> {
  const runDir = join(root, o.dirName ?? `run-${n++}`);
  const seed = o.seed ?? 7;
  const bench = toyBenchmark(o);
  const benchmark = o.name ? { ...bench, name: o.name } : bench;
  await runBenchmark({
    benchmark,
    method: { module: o.method ?? 'memrl', memoryParams: defaultMemoryParams({ simNormMean: 0.6, simNormStd: 0.15, epsilon: 0.2, simThreshold: 0.3 }), buildStrategy: 'proceduralization' },
    schedule: { epochs: o.epochs ?? 3, batchSize: 4, concurrency: 2, seed },
    validation: { run: o.runValidation ?? false, beforeTraining: false },
    models: {
      agent: (player) => {
        const sim = new SimChatModel({ seed, players: { [benchmark.name]: player, toy: player } });
        if (!o.real) return sim;
        // Same answers, but the run records a real model: what a sim-vs-real check must catch.
        const real: ChatModel = { label: 'openai:stub-model', simulated: false, chat: (req, signal) => sim.chat(req, signal) };
        return real;
      },
      embedder: new LocalNgramEmbedder(),
    },
    folder: { dir: runDir, resume: false, manifest: {} },
    log: pino({ level: 'silent' }),
  });
  return runDir;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `memrl compare ...args` through commander, with main.ts's error handling. */
export async function compareCli(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const program = new Command('memrl').exitOverride().configureOutput({
    writeOut: (s) => (stdout += s),
    writeErr: (s) => (stderr += s),
  });
  registerCompareCommand(program, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  for (const c of program.commands) c.exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  const saved = process.exitCode;
  process.exitCode = undefined;
  let code: number;
  try {
    await program.parseAsync(['compare', ...args], { from: 'user' });
    code = Number(process.exitCode ?? 0);
  } catch (err) {
    if (err instanceof CommanderError) code = err.exitCode === 0 ? 0 : 2;
    else if (err instanceof UserError) {
      stderr += `memrl: ${err.message}\n`;
      code = err.exitCode;
    } else throw err;
  } finally {
    process.exitCode = saved;
  }
  return { code, stdout, stderr };
}

/** A user-facing refusal: exit 2 and exactly one line on stderr. */
export function oneLine(r: CliResult): string {
  const lines = r.stderr.trim().split('\n');
  if (r.code !== 2 || lines.length !== 1) throw new Error(`expected exit 2 with one line, got ${r.code}: ${r.stderr}`);
  return lines[0]!;
}
