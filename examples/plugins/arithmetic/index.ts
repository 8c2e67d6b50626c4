/**
 * An example benchmark plug-in: two-step arithmetic word problems, generated from a
 * seed, scored by exact integer match. Offline and self-contained, so it runs with the
 * simulator anywhere; with a real model it is a small, honest task family.
 *
 *   memrl run arithmetic --plugin examples/plugins/arithmetic/index.ts --epochs 3
 *
 * Everything memrl needs is in the exported module object: its config section
 * (memrl.arithmetic), defaults, flags, how settings come out of the config, and
 * `create`, which returns the runnable benchmark (tasks, episodes, a sim player).
 */
import { EpisodeFault, positiveInt, Rng, successProbability, z, ZERO_USAGE, type BenchmarkModule, type InjectedMemory, type TaskBase } from 'memrl';

interface ArithmeticTask extends TaskBase {
  answer: number;
}

interface ArithmeticSettings {
  train: number;
  valid: number;
  maxOperand: number;
}

const section = z
  .object({
    train: z.number().int().min(1).default(40).describe('Arithmetic: training problems generated from the run seed. CLI: --problems.'),
    valid: z.number().int().min(0).default(10).describe('Arithmetic: validation problems (0 = none).'),
    max_operand: z.number().int().min(2).default(60).describe('Arithmetic: largest number in a problem.'),
  })
  .strict();

/** Problem shapes: the story and how its answer follows from three numbers. */
const SHAPES: { text: (a: number, b: number, c: number) => string; answer: (a: number, b: number, c: number) => number }[] = [
  { text: (a, b, c) => `A shelf holds ${a} boxes of ${b} pencils each. ${c} pencils are sold. How many pencils are left?`, answer: (a, b, c) => a * b - c },
  { text: (a, b, c) => `A train carries ${a} passengers. At the first stop ${b} get off and ${c} get on. How many passengers are on board?`, answer: (a, b, c) => a - b + c },
  { text: (a, b, c) => `A baker makes ${a} trays of ${b} rolls and keeps ${c} rolls for herself. How many rolls can she sell?`, answer: (a, b, c) => a * b - c },
  { text: (a, b, c) => `A tank has ${a} litres. It loses ${b} litres a day for ${c} days. How many litres are left, if it never runs dry?`, answer: (a, b, c) => Math.max(0, a - b * c) },
];

function problems(n: number, maxOperand: number, seed: number, offset: number): ArithmeticTask[] {
  const rng = new Rng(`arithmetic:${seed}:${offset}`);
  return Array.from({ length: n }, (_, i) => {
    const shape = SHAPES[(i + offset) % SHAPES.length]!;
    const [a, b, c] = [2 + rng.int(maxOperand - 1), 2 + rng.int(maxOperand - 1), 1 + rng.int(maxOperand)];
    return { id: `arithmetic/${offset + i}`, key: shape.text(a, b, c), answer: shape.answer(a, b, c) };
  });
}

/** The model's answer: the last integer after "ANSWER:". */
export function parseAnswer(reply: string): number | null {
  const m = [...reply.matchAll(/ANSWER:\s*(-?\d+)/gi)].at(-1);
  return m ? Number(m[1]) : null;
}

function memoryBlock(memories: InjectedMemory[]): string {
  if (memories.length === 0) return '';
  const items = memories.map((m, i) => `[${i + 1}] (${m.success ? 'worked' : 'failed'}) ${m.content.slice(0, 600)}`);
  return `\n\nNotes from earlier problems:\n${items.join('\n')}`;
}

export const arithmetic: BenchmarkModule<ArithmeticSettings, ArithmeticTask> = {
  kind: 'benchmark',
  name: 'arithmetic',
  displayName: 'Arithmetic',
  description: 'Two-step arithmetic word problems generated from the seed, scored by exact match (an example plug-in).',
  configSection: section,
  defaults: {
    llm: { temperature: 0 },
    memory: { k_retrieve: 5, sim_norm_mean: 0.55, sim_norm_std: 0.15 },
    experiment: { num_sections: 3, batch_size: 8 },
    rl_config: { epsilon: 0.1, topk: 3, sim_threshold: 0.3 },
  },
  flags: [{ flags: '--problems <n>', description: 'training problems to generate (default: memrl.arithmetic.train, else 40)', parse: positiveInt, path: ['memrl', 'arithmetic', 'train'] }],
  tagFamily: 'other',
  resolve: (tree) => {
    const s = tree.memrl.arithmetic as z.output<typeof section>;
    return { train: s.train, valid: s.valid, maxOperand: s.max_operand };
  },
  create: (s, run) => {
    const seed = run.run.seed;
    const train = problems(s.train, s.maxOperand, seed, 0);
    const valid = problems(s.valid, s.maxOperand, seed, 10_000);
    const all = new Map([...train, ...valid].map((t) => [t.id, t]));
    return {
      name: 'arithmetic',
      envLabel: 'arithmetic',
      load: async () => ({ train, valid, sources: [], splitLabel: `generated (seed ${seed}, ${train.length}/${valid.length})` }),
      episode: async (task, ctx) => {
        let reply;
        try {
          reply = await ctx.model.chat(
            {
              messages: [
                { role: 'system', content: `Solve the problem. End with a line "ANSWER: <integer>".${memoryBlock(ctx.memories)}` },
                { role: 'user', content: task.key },
              ],
              tags: { benchmark: 'arithmetic', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent', purpose: 'solve' },
              memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
            },
            ctx.signal,
          );
        } catch (err) {
          // The endpoint failed: an error row, not a wrong answer.
          throw new EpisodeFault('model', 'model_call_failed', `model call failed: ${err instanceof Error ? err.message : String(err)}`);
        }
        const got = parseAnswer(reply.text);
        const success = got === task.answer;
        return {
          status: success ? 'pass' : 'fail',
          success,
          steps: 1,
          answer: got === null ? undefined : String(got),
          ...(success ? {} : { error: got === null ? 'no ANSWER line' : `answered ${got}, expected ${task.answer}` }),
          trajectory: `Problem: ${task.key}\nReply: ${reply.text}\nExpected: ${task.answer}`,
          usage: reply.usage ?? ZERO_USAGE,
          extra: { expected: task.answer, ...(got === null ? {} : { got }) },
        };
      },
      // The simulator answers right with the probability memory earns it, else off by a little.
      simPlayer: () => ({
        reply(req, rng) {
          const task = all.get(req.tags.taskId);
          if (!task) return 'ANSWER: 0';
          const p = successProbability({ taskId: task.id, taskKey: task.key, memories: req.memoryHints ?? [] });
          const answer = rng.next() < p ? task.answer : task.answer + 1 + rng.int(5);
          return `Working through it step by step.\nANSWER: ${answer}`;
        },
      }),
      describeEvaluator: async () => ({ kind: 'exact-integer-match', generator: 'examples/plugins/arithmetic' }),
    };
  },
};

export default arithmetic;
