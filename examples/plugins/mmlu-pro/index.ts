/**
 * MMLU-Pro (Wang et al., 2024; TIGER-Lab/MMLU-Pro, MIT) as a memrl benchmark plug-in:
 * ten-option multiple-choice questions from 14 disciplines, one of the single-turn task
 * streams of Evo-Memory. Built only from the public plug-in API (`import ... from
 * 'memrl'`); see README.md for the data, the scorer and what the API lacked.
 *
 *   memrl run mmlu-pro --plugin examples/plugins/mmlu-pro/index.ts --epochs 3
 *   memrl run mmlu-pro --plugin examples/plugins/mmlu-pro/index.ts --questions test-00000-of-00001.parquet --categories economics,philosophy
 */
import { EpisodeFault, readRecords, Rng, successProbability, UserError, z, ZERO_USAGE, type BenchmarkModule, type InjectedMemory, type TaskBase } from 'memrl';
import { fileURLToPath } from 'node:url';
import { isAbsolute, resolve } from 'node:path';

export const LETTERS = 'ABCDEFGHIJ';
const SAMPLE = fileURLToPath(new URL('./data/sample.jsonl', import.meta.url));
const SOURCE = 'https://huggingface.co/datasets/TIGER-Lab/MMLU-Pro (data/test-00000-of-00001.parquet)';

export interface McqTask extends TaskBase {
  questionId: number;
  question: string;
  options: string[];
  /** The right letter, A-J. */
  answer: string;
  category: string;
}

const section = z
  .object({
    questions: z.string().nullable().default(null).describe('MMLU-Pro: the test split as downloaded (.parquet) or as .jsonl/.json records; null = the 24-question sample shipped with the example. CLI: --questions.'),
    categories: z.array(z.string()).default([]).describe('MMLU-Pro: categories to keep, e.g. [economics, philosophy]; empty = all. CLI: --categories a,b.'),
    valid_fraction: z.number().min(0).max(0.9).default(0.25).describe('MMLU-Pro: share of the questions held out for validation, drawn with the run seed.'),
  })
  .strict();

interface Settings {
  questions: string;
  categories: string[];
  validFraction: number;
}

/**
 * The reference's answer extraction (evaluate_from_api.py): "answer is (X)", else the last
 * "Answer: X", else the last standalone letter A-J; null when none (scored wrong).
 */
export function extractAnswer(reply: string): string | null {
  const text = reply.replaceAll('**', '');
  const first = /answer is \(?([A-J])\)?/.exec(text);
  if (first) return first[1]!;
  const again = /.*[aA]nswer:\s*([A-J])/.exec(text);
  if (again) return again[1]!;
  const last = /\b[A-J]\b(?!.*\b[A-J]\b)/s.exec(text);
  return last ? last[0] : null;
}

/** One row of the split as a task; a row without what a question needs is refused, naming it. */
function toTask(row: Record<string, unknown>, where: string): McqTask {
  const id = row.question_id;
  const question = row.question;
  const options = Array.isArray(row.options) ? row.options.filter((o): o is string => typeof o === 'string' && o !== 'N/A') : null;
  const answer = row.answer;
  if (typeof id !== 'number' || typeof question !== 'string' || !options || options.length < 2 || typeof answer !== 'string' || !LETTERS.slice(0, options.length).includes(answer)) {
    throw new UserError(`${where}: not an MMLU-Pro question (question_id, question, options, answer A-J within the options); give the TIGER-Lab/MMLU-Pro test split`, 'data_invalid');
  }
  return { id: `mmlu-pro/${id}`, key: question, questionId: id, question, options, answer, category: typeof row.category === 'string' ? row.category : 'other' };
}

/** The reference's zero-shot chain-of-thought prompt, with the memories between the instruction and the question. */
function prompt(task: McqTask, memories: InjectedMemory[]): string {
  const notes = memories.length ? `Notes from earlier questions:\n${memories.map((m, i) => `[${i + 1}] (${m.success ? 'answered right' : 'answered wrong'}) ${m.content.slice(0, 800)}`).join('\n')}\n\n` : '';
  const options = task.options.map((o, i) => `${LETTERS[i]}. ${o}`).join('\n');
  return (
    `The following are multiple choice questions (with answers) about ${task.category}. Think step by step and then finish your answer with "the answer is (X)" where X is the correct letter choice.\n\n` +
    `${notes}Question: ${task.question}\nOptions: ${options}\nAnswer: Let's think step by step.`
  );
}

export const mmluPro: BenchmarkModule<Settings, McqTask> = {
  kind: 'benchmark',
  name: 'mmlu-pro',
  displayName: 'MMLU-Pro',
  description: 'MMLU-Pro: ten-option multiple-choice questions from 14 disciplines, scored by the reference\'s answer extraction (an example plug-in).',
  configSection: section,
  defaults: {
    memory: { k_retrieve: 5 },
    experiment: { num_sections: 3, batch_size: 8 },
    rl_config: { topk: 3 },
  },
  flags: [
    { flags: '--questions <file>', description: 'the MMLU-Pro test split (.parquet, .jsonl or .json) (default: memrl.mmlu-pro.questions, else the 24-question sample)', path: ['memrl', 'mmlu-pro', 'questions'] },
    {
      flags: '--categories <list>',
      description: 'categories to keep, comma-separated (default: memrl.mmlu-pro.categories, else all)',
      transform: (v) => String(v).split(',').map((c) => c.trim()).filter(Boolean),
      path: ['memrl', 'mmlu-pro', 'categories'],
    },
  ],
  tagFamily: 'other',
  resolve: (tree, ctx) => {
    const s = section.parse(tree.memrl['mmlu-pro'] ?? {});
    return { questions: s.questions === null ? SAMPLE : isAbsolute(s.questions) ? s.questions : resolve(ctx.cwd, s.questions), categories: s.categories, validFraction: s.valid_fraction };
  },
  create: (s, run) => {
    const byId = new Map<string, McqTask>();
    return {
      name: 'mmlu-pro',
      envLabel: 'mmlu-pro',
      load: async () => {
        const { records, source } = await readRecords(s.questions, `download the test split from ${SOURCE}, or leave memrl.mmlu-pro.questions unset for the sample`);
        let tasks = records.map((row, i) => toTask(row, `${s.questions} record ${i + 1}`));
        if (s.categories.length) {
          const known = new Set(tasks.map((t) => t.category));
          const unknown = s.categories.filter((c) => !known.has(c));
          if (unknown.length) throw new UserError(`memrl.mmlu-pro.categories: ${unknown.join(', ')} not in ${s.questions} (it has: ${[...known].sort().join(', ')})`, 'config_invalid');
          tasks = tasks.filter((t) => s.categories.includes(t.category));
        }
        for (const t of tasks) byId.set(t.id, t);
        // A fixed split per seed: the shuffled questions, the last share held out.
        const shuffled = new Rng(`mmlu-pro:split:${run.run.seed}`).shuffle(tasks);
        const cut = Math.max(1, Math.round(shuffled.length * (1 - s.validFraction)));
        const train = shuffled.slice(0, cut);
        const valid = shuffled.slice(cut);
        const label = `${s.questions === SAMPLE ? 'sample' : source.path}${s.categories.length ? ` [${s.categories.join(', ')}]` : ''} (${train.length}/${valid.length}, seed ${run.run.seed})`;
        return { train, valid, sources: [source], splitLabel: label };
      },
      episode: async (task, ctx) => {
        let reply;
        try {
          reply = await ctx.model.chat(
            {
              messages: [{ role: 'user', content: prompt(task, ctx.memories) }],
              tags: { benchmark: 'mmlu-pro', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent' },
              memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
            },
            ctx.signal,
          );
        } catch (err) {
          throw new EpisodeFault('model', 'model_call_failed', `model call failed: ${err instanceof Error ? err.message : String(err)}`);
        }
        const pred = extractAnswer(reply.text);
        const success = pred === task.answer;
        const right = `(${task.answer}) ${task.options[LETTERS.indexOf(task.answer)]}`;
        return {
          status: success ? 'pass' : 'fail',
          success,
          steps: 1,
          ...(pred === null ? {} : { answer: pred }),
          ...(success ? {} : { error: pred === null ? 'no answer letter found' : `answered ${pred}, the answer is ${task.answer}` }),
          trajectory: `Question (${task.category}): ${task.question}\nOptions: ${task.options.map((o, i) => `${LETTERS[i]}. ${o}`).join(' | ')}\nReasoning: ${reply.text}\nVerdict: ${success ? 'right' : `wrong; the answer is ${right}`}`,
          usage: reply.usage ?? ZERO_USAGE,
          extra: { category: task.category, questionId: task.questionId, expected: task.answer, ...(pred === null ? {} : { pred }) },
        };
      },
      // Right with the probability memory earns it, else another letter; in the reference's answer format.
      simPlayer: () => ({
        reply(req, rng) {
          const task = byId.get(req.tags.taskId);
          if (!task) return 'I am not sure. The answer is (A).';
          const p = successProbability({ taskId: task.id, taskKey: task.key, memories: req.memoryHints ?? [] });
          const right = LETTERS.indexOf(task.answer);
          const letter = rng.next() < p ? task.answer : LETTERS[(right + 1 + rng.int(task.options.length - 1)) % task.options.length]!;
          return `Let's think step by step. Weighing the options for this ${task.category} question. The answer is (${letter}).`;
        },
      }),
      describeEvaluator: async () => ({ kind: 'letter-match', extraction: 'MMLU-Pro evaluate_from_api.py extract_answer (three patterns)', noAnswer: 'wrong', source: SOURCE }),
    };
  },
};

export default mmluPro;
