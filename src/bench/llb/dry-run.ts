/**
 * LifelongAgentBench for --dry-run: its tasks read from the data files as the run reads
 * them (no database, no shell), the opening messages of a few training tasks built by
 * llbOpening, several turns per episode.
 */
import type { ResolvedConfig } from '../../config/types.js';
import type { DryRunFacts } from '../../core/dry-run.js';
import { llbRunOptions, loadLlbTasks } from './benchmark.js';
import type { LlbSettings } from './config.js';
import { dbTaskPrompt, llbOpening, osTaskPrompt } from './episode.js';
import { LLB_SWITCHES } from './switches.js';

const SAMPLE = 24;
/** Turns an episode takes in expectation, and what a turn's observation adds. */
const EXPECTED_TURNS = 4;
const OBSERVATION_CHARS = 300;
const REPLY_TOKENS = 150;

export async function llbDryRun(s: LlbSettings, cfg: ResolvedConfig<LlbSettings>): Promise<DryRunFacts> {
  const opts = llbRunOptions(s, cfg);
  const loaded = loadLlbTasks(opts);
  const sample = loaded.train.slice(0, SAMPLE);
  const prompts = sample.map((t) => llbOpening(t.kind, t.kind === 'db' ? dbTaskPrompt(t, opts.episode) : osTaskPrompt(t, opts.episode), [], opts.episode));
  // The reference asks once more at the round limit (llb.extra-turn-at-limit).
  const max = cfg.run.maxSteps + (cfg.fidelity.memrl(LLB_SWITCHES.extraTurnAtLimit) ? 0 : 1);
  const meanTask = prompts.reduce((n, m) => n + String(m.at(-1)?.content ?? '').length, 0) / Math.max(1, prompts.length);
  return {
    train: loaded.train.length,
    valid: cfg.run.runValidation ? loaded.valid.length : 0,
    tasksFrom: `loaded here (${loaded.splitLabel})`,
    agentPrompts: prompts,
    turns: { expected: Math.min(EXPECTED_TURNS, max), max },
    observationChars: OBSERVATION_CHARS,
    replyTokens: REPLY_TOKENS,
    // A memory is the episode's conversation (or a reflection on it).
    memoryChars: meanTask + EXPECTED_TURNS * (REPLY_TOKENS * 4 + OBSERVATION_CHARS),
    memoryBudgetChars: null,
    envSeconds: EXPECTED_TURNS * 0.2,
    assumptions: [
      `LLB: ~${EXPECTED_TURNS} turns per episode (at most experiment.max_steps${max > cfg.run.maxSteps ? ' + 1' : ''}), each a ~${REPLY_TOKENS}-token reply and a ~${OBSERVATION_CHARS}-character result; a memory holds that conversation`,
    ],
  };
}
