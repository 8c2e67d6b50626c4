/**
 * The replay tool's core: run a JSON-lines script of memory operations against a
 * fresh engine and return one JSON line per retrieve/update. It lets anyone check
 * the engine against hand-made vectors (or the reference's logs) without a model.
 *
 * Ops (one JSON object per line; blank lines are skipped):
 *   {"op":"config","method":"memrl","seed":1,"rl":{...},"memory":{...}}   optional, first op only
 *   {"op":"insert","id":"m1","key":"text","embedding":[...],"q":0,"success":true}
 *   {"op":"retrieve","embedding":[...]}        → {"op":"retrieve","selected":[{id,sim,q,score}],"pool":n}
 *   {"op":"update","ids":["m1"],"success":true} → {"op":"update","q":{"m1":0.3}}
 */
import { z } from 'zod';
import { UserError, errorMessage } from '../util/errors.js';
import { Rng } from '../util/rng.js';
import { MemoryEngine } from './engine.js';
import { defaultMemoryParams } from './params.js';
import type { MemoryParams } from './types.js';

/** Reference config keys (snake_case, rl_config or memory section) → engine params. */
const KEY_MAP: Record<string, keyof MemoryParams> = {
  k_retrieve: 'k1',
  sim_threshold: 'simThreshold',
  topk: 'k2',
  epsilon: 'epsilon',
  alpha: 'alpha',
  success_reward: 'successReward',
  failure_reward: 'failureReward',
  q_init_pos: 'qInitPos',
  q_init_neg: 'qInitNeg',
  q_floor: 'qFloor',
  q_min_threshold: 'qMinThreshold',
  recency_boost: 'recencyBoost',
  weight_sim: 'weightSim',
  weight_q: 'weightQ',
  sim_norm_mean: 'simNormMean',
  sim_norm_std: 'simNormStd',
  add_similarity_threshold: 'addSimilarityThreshold',
  use_z_score_normalization: 'zScore',
  dedup_by_task_id: 'dedupByTaskId',
  update_strategy: 'updateStrategy',
};

/** Keys of the reference rl_config that the engine does not use (accepted so a pasted config works). */
const IGNORED_KEYS = new Set(['tau', 'gamma', 'novelty_threshold', 'reward_merge_gain']);

const finiteNumber = z.number().finite();
const embedding = z.array(finiteNumber).min(1);
const section = z.record(z.string(), z.unknown());

const opSchema = z.discriminatedUnion('op', [
  z
    .object({
      op: z.literal('config'),
      method: z.enum(['none', 'rag', 'memp', 'memrl']).optional(),
      seed: z.number().int().optional(),
      rl: section.optional(),
      memory: section.optional(),
    })
    .strict(),
  z
    .object({
      op: z.literal('insert'),
      id: z.string().min(1),
      key: z.string(),
      embedding: embedding.optional(),
      q: finiteNumber.optional(),
      success: z.boolean().optional(),
      content: z.string().optional(),
      meta: section.optional(),
    })
    .strict(),
  z.object({ op: z.literal('retrieve'), embedding }).strict(),
  z.object({ op: z.literal('update'), ids: z.array(z.string().min(1)), success: z.boolean() }).strict(),
]);

type Op = z.infer<typeof opSchema>;

function paramsFromSections(op: Extract<Op, { op: 'config' }>): Partial<MemoryParams> {
  const out: Partial<Record<keyof MemoryParams, unknown>> = {};
  for (const [name, sec] of [
    ['rl', op.rl],
    ['memory', op.memory],
  ] as const) {
    for (const [k, v] of Object.entries(sec ?? {})) {
      if (IGNORED_KEYS.has(k)) continue;
      const target = KEY_MAP[k];
      if (!target) throw new Error(`unknown key ${name}.${k} (known: ${Object.keys(KEY_MAP).join(', ')})`);
      out[target] = v;
    }
  }
  if (op.method) out.method = op.method;
  return out as Partial<MemoryParams>;
}

function describeZodError(err: z.ZodError): string {
  return err.issues
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/**
 * Run the ops and return the output lines. Errors are `UserError`s of the form
 * `<file>:<line>: <problem>`; nothing is returned for a script that fails.
 */
export function replayOps(lines: readonly string[], file = '<ops>'): string[] {
  const out: string[] = [];
  let engine: MemoryEngine | undefined;
  let rng: Rng | undefined;
  let sawOp = false;

  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const fail = (msg: string): never => {
      throw new UserError(`${file}:${lineNo}: ${msg}`, 'replay_op_invalid');
    };
    const text = raw.trim();
    if (text === '') return;

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      fail(`not valid JSON (${errorMessage(err)})`);
    }
    const parsed = opSchema.safeParse(json);
    if (!parsed.success) fail(`bad op: ${describeZodError(parsed.error)}`);
    const op = (parsed as { data: Op }).data;

    try {
      if (op.op === 'config') {
        if (sawOp) fail('"config" must be the first op');
        engine = new MemoryEngine(defaultMemoryParams(paramsFromSections(op)));
        rng = new Rng(op.seed ?? 0);
        sawOp = true;
        return;
      }
      sawOp = true;
      engine ??= new MemoryEngine(defaultMemoryParams());
      rng ??= new Rng(0);

      switch (op.op) {
        case 'insert':
          engine.insertDirect({
            id: op.id,
            key: op.key,
            embedding: op.embedding,
            q: op.q,
            success: op.success,
            content: op.content,
            meta: op.meta,
            now: lineNo,
          });
          break;
        case 'retrieve': {
          const sel = engine.retrieve(Float32Array.from(op.embedding), rng);
          out.push(
            JSON.stringify({
              op: 'retrieve',
              selected: sel.selected.map((c) => ({ id: c.id, sim: c.sim, q: c.q, score: c.score })),
              pool: sel.pool,
            }),
          );
          break;
        }
        case 'update': {
          // Line numbers stand in for time so the replay stays deterministic.
          engine.commit([{ injectedIds: op.ids, success: op.success }], lineNo);
          const q: Record<string, number> = {};
          for (const id of op.ids) q[id] = (engine.get(id) as { q: number }).q;
          out.push(JSON.stringify({ op: 'update', q }));
          break;
        }
      }
    } catch (err) {
      // Already located (file:line); anything else (e.g. the engine refusing an op) gets the line here.
      if (err instanceof UserError && err.code === 'replay_op_invalid') throw err;
      fail(errorMessage(err));
    }
  });
  return out;
}
