/**
 * BigCodeBench for --dry-run: its tasks loaded as the run loads them, the first prompt of
 * a few training tasks built by bcbMessages, one call per episode.
 */
import type { ResolvedConfig } from '../../config/types.js';
import type { DryRunFacts } from '../../core/dry-run.js';
import { bcbRunOptions } from './benchmark.js';
import type { BcbSettings } from './config.js';
import { loadBcb } from './dataset.js';
import { bcbMessages } from './episode.js';

/** Training tasks whose prompts are built (their mean stands for all). */
export const PROMPT_SAMPLE = 24;

export async function bcbDryRun(s: BcbSettings, cfg: ResolvedConfig<BcbSettings>): Promise<DryRunFacts> {
  const opts = bcbRunOptions(s, cfg);
  const loaded = await loadBcb(opts.load);
  const sample = loaded.train.slice(0, PROMPT_SAMPLE);
  const meanTask = sample.reduce((n, t) => n + t.key.length, 0) / Math.max(1, sample.length);
  return {
    train: loaded.train.length,
    valid: cfg.run.runValidation ? loaded.valid.length : 0,
    tasksFrom: `loaded here (${loaded.splitLabel})`,
    agentPrompts: sample.map((t) => bcbMessages(t, { memories: [] }, opts.episode)),
    turns: { expected: 1, max: 1 },
    replyTokens: 500,
    // A memory shows its task and the writer's script (or reflection).
    memoryChars: meanTask + 1500,
    memoryBudgetChars: s.memoryBudget,
    envSeconds: 1,
    assumptions: [
      'BCB: a reply of ~500 tokens (code and a short explanation); a memory of its task and a ~1,500-character script, cut to memrl.bcb.memory_budget',
      'BCB: ~1 s of tests per episode (the gold solutions take 0.6 s on average; a wrong answer may run to the limit)',
    ],
  };
}
