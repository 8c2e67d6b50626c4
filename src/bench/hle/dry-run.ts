/**
 * HLE for --dry-run: its questions loaded as the run loads them when the Parquet file is
 * here (else the release's 2,500 questions and a typical question), the solver's first
 * prompt built by hleMessages and the judge's by hleJudgeMessages: two calls per episode.
 */
import type { ResolvedConfig } from '../../config/types.js';
import type { DryRunFacts } from '../../core/dry-run.js';
import { UserError } from '../../util/errors.js';
import { hleRunOptions } from './benchmark.js';
import type { HleSettings } from './config.js';
import { loadHle, type HleTask } from './dataset.js';
import { hleJudgeMessages, hleMessages } from './episode.js';

/** cais/hle's test split, the release memrl pulls (docs/data.md). */
export const HLE_RELEASE_QUESTIONS = 2500;
const SAMPLE = 24;
/** A question's length when the data is not here, and the visible answer the judge reads. */
const TYPICAL_QUESTION_CHARS = 1000;
const TYPICAL_ANSWER_CHARS = 2000;
/** Text of a given length that tokenizes like prose (a run of one letter would not). */
const prose = (chars: number): string => 'The quick brown fox jumps over the lazy dog. '.repeat(Math.ceil(chars / 45)).slice(0, chars);

export async function hleDryRun(s: HleSettings, cfg: ResolvedConfig<HleSettings>): Promise<DryRunFacts> {
  const opts = hleRunOptions(s, cfg);
  const assumptions = [
    "HLE: a solver reply of ~4,000 completion tokens (a reasoning model's thinking included; at most llm.max_tokens), whose visible ~2,000 characters the judge reads; a judge reply of ~200 tokens",
    'HLE: images (about 14% of the questions) are not counted',
  ];
  let train: HleTask[];
  let valid: number;
  let tasksFrom: string;
  try {
    if (!opts.load.trainPath) throw new UserError('no HLE data here');
    const loaded = await loadHle(opts.load);
    train = loaded.train;
    valid = loaded.valid.length;
    tasksFrom = `loaded here (${loaded.splitLabel})`;
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    // Not pulled (HLE is gated): the release's size, split and capped as the run would.
    let n = Math.max(1, Math.floor(HLE_RELEASE_QUESTIONS * s.datasetRatio));
    let v = n - Math.floor(n * s.trainValidSplit);
    n -= v;
    n = Math.min(n, s.numTrain ?? n, cfg.run.limit ?? n);
    v = Math.min(v, s.numValid ?? v, cfg.run.limit ?? v);
    const question = prose(TYPICAL_QUESTION_CHARS);
    train = Array.from({ length: n }, (_, i) => ({ id: `typical-${i}`, key: question, question, answer: 'a', answerType: 'exactMatch', category: 'Other' }));
    valid = v;
    tasksFrom = `the release's ${HLE_RELEASE_QUESTIONS} questions (the data is not here: memrl data pull hle)`;
    assumptions.push(`HLE: questions of ${TYPICAL_QUESTION_CHARS} characters (the data is not here to measure them); a category filter is not applied`);
  }
  const sample = train.slice(0, SAMPLE);
  const meanQuestion = sample.reduce((n, t) => n + t.question.length, 0) / Math.max(1, sample.length);
  const answer = prose(TYPICAL_ANSWER_CHARS);
  return {
    train: train.length,
    valid: cfg.run.runValidation ? valid : 0,
    tasksFrom,
    agentPrompts: sample.map((t) => hleMessages(t, { memories: [] }, opts.episode)),
    judgePrompts: sample.map((t) => hleJudgeMessages(t, answer, opts.episode.promptDir)),
    turns: { expected: 1, max: 1 },
    replyTokens: 4000,
    judgeReplyTokens: 200,
    // A memory is the question and the solution, shown whole.
    memoryChars: meanQuestion + TYPICAL_ANSWER_CHARS,
    memoryBudgetChars: null,
    assumptions,
  };
}
