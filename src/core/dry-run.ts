/**
 * What a benchmark tells `--dry-run` about its episodes, so a run's or a sweep's model
 * calls, tokens, cost and time can be estimated before anything is spent: how many
 * tasks, the first prompts it would send (built with its own prompt code), how many
 * calls an episode makes and how long its replies tend to be. The estimator
 * (app/estimate) turns these into numbers; a benchmark without `dryRun` is estimated
 * from its loaded tasks as one call per episode, which the output says.
 */
import { z } from 'zod';
import { chatMessageSchema } from '../llm/types.js';
import { contract } from '../util/contract-schema.js';

export const dryRunFactsSchema = contract('DryRunFacts', "What `dryRun` returns: a benchmark's episodes as the cost estimate of `--dry-run` needs them.", {
  train: z.number().int().min(0).describe('Training tasks the run would play each epoch.'),
  valid: z.number().int().min(0).describe('Validation tasks of one validation pass (0 without validation).'),
  tasksFrom: z.string().describe("Where the counts come from: the data loaded here, or the release's published size when the data is not on this machine."),
  agentPrompts: z.array(z.array(chatMessageSchema)).describe('The first agent call of a few training episodes, no memory injected, as the episode would send it.'),
  judgePrompts: z.array(z.array(chatMessageSchema)).optional().describe('The scoring model\'s call of the same episodes (a benchmark with a judge), with a typical reply in it.'),
  turns: z.object({ expected: z.number().positive(), max: z.number().int().positive() }).describe('Agent calls of one episode: a single answer is { expected: 1, max: 1 }.'),
  observationChars: z.number().min(0).optional().describe('Characters each later turn adds to the conversation besides the reply (the environment\'s observation).'),
  replyTokens: z.number().positive().describe('Completion tokens of a typical agent reply, reasoning included.'),
  judgeReplyTokens: z.number().positive().optional().describe("Completion tokens of a typical judge reply."),
  memoryChars: z.number().min(0).describe('Characters of one memory as the prompt shows it (its task and its script, reflection or trajectory).'),
  memoryBudgetChars: z.number().min(0).nullable().optional().describe('The cap on the whole injected memory block, if the benchmark has one.'),
  envSeconds: z.number().min(0).optional().describe('Seconds one episode spends outside model calls (tests, environment steps).'),
  assumptions: z.array(z.string()).describe('What the numbers above assume, one line each.'),
});
export type DryRunFacts = z.infer<typeof dryRunFactsSchema>;
