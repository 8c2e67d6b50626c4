/**
 * ALFWorld for --dry-run: its games are listed by the Python bridge, which a dry run does
 * not start, so the counts are the splits' sizes (ALFWorld's release, or the stand-in's
 * games per type), and the opening messages are built by openingMessages for each task
 * type's example with a typical first observation. Many turns per episode.
 */
import { existsSync } from 'node:fs';
import type { ResolvedConfig } from '../../config/types.js';
import type { DryRunFacts } from '../../core/dry-run.js';
import { alfworldRunOptions } from './benchmark.js';
import type { AlfworldSettings } from './config.js';
import { loadExamples, TASK_TYPES, type FewShotExamples } from './dataset.js';
import { AlfworldPrompts, openingMessages } from './messages.js';

/** ALFWorld's games per split (its release), and the stand-in's default games per task type. */
const RELEASE_GAMES = { train: 3553, valid_seen: 140, valid_unseen: 134 } as const;
const STANDIN_PER_TYPE = { train: 20, valid_seen: 4, valid_unseen: 4 } as const;
const TYPICAL_OBSERVATION = `You are in the middle of a room. Looking quickly around you, you see ${Array.from({ length: 12 }, (_, i) => `a cabinet ${i + 1}`).join(', ')}, a countertop 1, a fridge 1, a sinkbasin 1, and a stoveburner 1.\nYour task is to: put a clean mug in coffeemachine.`;
const EXPECTED_TURNS = 20;
const OBSERVATION_CHARS = 150;
const REPLY_TOKENS = 300;

export async function alfworldDryRun(a: AlfworldSettings, cfg: ResolvedConfig<AlfworldSettings>): Promise<DryRunFacts> {
  const opts = alfworldRunOptions(a, cfg);
  const count = (split: keyof typeof RELEASE_GAMES): number => {
    const all = a.env === 'standin' ? (a.gamesPerType[split] ?? STANDIN_PER_TYPE[split]) * TASK_TYPES.length : RELEASE_GAMES[split];
    const n = split === 'train' ? Math.floor(all * a.datasetRatio) : all;
    return Math.min(n, cfg.run.limit ?? n);
  };
  const prompts = new AlfworldPrompts(opts.promptDir);
  const examples: FewShotExamples = existsSync(opts.fewShotPath) ? loadExamples(opts.fewShotPath) : {};
  const max = cfg.run.maxSteps;
  return {
    train: count('train'),
    valid: cfg.run.runValidation ? count(a.validSplit) : 0,
    tasksFrom: a.env === 'standin' ? "the stand-in's games per task type" : "ALFWorld's release (3553 train, 140 valid_seen, 134 valid_unseen games; the bridge that lists them is not started)",
    agentPrompts: TASK_TYPES.map((taskType) => openingMessages({ task: TYPICAL_OBSERVATION, taskType, memories: [], examples }, prompts)),
    turns: { expected: Math.min(EXPECTED_TURNS, max), max },
    observationChars: OBSERVATION_CHARS,
    replyTokens: REPLY_TOKENS,
    // A memory shows its script, a reflection or the trajectory it kept.
    memoryChars: 3000,
    memoryBudgetChars: null,
    envSeconds: EXPECTED_TURNS * 0.1,
    assumptions: [
      `ALFWorld: ~${Math.min(EXPECTED_TURNS, max)} actions per game (a won game ends early, a lost one runs to experiment.max_steps), each a ~${REPLY_TOKENS}-token reply (a reasoning model's thinking included) and a ~${OBSERVATION_CHARS}-character observation; a first observation of ${TYPICAL_OBSERVATION.length} characters; a memory of ~3,000 characters`,
      ...(Object.keys(examples).length ? [] : [`ALFWorld: the few-shot examples (${opts.fewShotPath}) are not here, so the prompts leave them out: memrl data pull alfworld`]),
    ],
  };
}
