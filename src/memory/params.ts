import type { MemoryParams } from './types.js';

/**
 * The engine's defaults: the reference's rl_bcb_config.yaml values. Each benchmark's
 * config overrides a few of them (see docs/memory-engine.md).
 */
const REFERENCE_DEFAULTS: MemoryParams = {
  method: 'memrl',
  k1: 5,
  simThreshold: 0.5,
  k2: 5,
  epsilon: 0.1,
  alpha: 0.3,
  successReward: 1,
  failureReward: -1,
  qInitPos: 0,
  qInitNeg: 0,
  qFloor: null,
  qMinThreshold: -0.8,
  recencyBoost: 0,
  weightSim: 0.5,
  weightQ: 0.5,
  simNormMean: 0.31,
  simNormStd: 0.1,
  zScore: true,
  dedupByTaskId: false,
  addSimilarityThreshold: 0.9,
  updateStrategy: 'adjustment',
};

export function defaultMemoryParams(overrides: Partial<MemoryParams> = {}): MemoryParams {
  // Skip explicit undefineds so a partially-filled object cannot blank a default.
  const given = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as Partial<MemoryParams>;
  return { ...REFERENCE_DEFAULTS, ...given };
}

/** Values the engine cannot work with, one message each (empty when the params are usable). */
export function checkMemoryParams(p: MemoryParams): string[] {
  const problems: string[] = [];
  const finite = (name: keyof MemoryParams) => {
    const v = p[name];
    if (typeof v !== 'number' || !Number.isFinite(v)) problems.push(`${name} must be a finite number (got ${String(v)})`);
  };
  const count = (name: 'k1' | 'k2') => {
    const v = p[name];
    if (!(Number.isInteger(v) && v >= 0)) problems.push(`${name} must be a non-negative integer (got ${String(v)})`);
  };
  count('k1');
  count('k2');
  for (const n of [
    'simThreshold',
    'epsilon',
    'alpha',
    'successReward',
    'failureReward',
    'qInitPos',
    'qInitNeg',
    'qMinThreshold',
    'recencyBoost',
    'weightSim',
    'weightQ',
    'simNormMean',
    'simNormStd',
    'addSimilarityThreshold',
  ] as const) {
    finite(n);
  }
  for (const n of ['zScore', 'dedupByTaskId'] as const) {
    if (typeof p[n] !== 'boolean') problems.push(`${n} must be true or false (got ${String(p[n])})`);
  }
  if (p.qFloor !== null && !Number.isFinite(p.qFloor)) problems.push(`qFloor must be null or a finite number`);
  if (p.epsilon < 0 || p.epsilon > 1) problems.push(`epsilon must be in [0, 1] (got ${p.epsilon})`);
  if (!['none', 'rag', 'memp', 'memrl'].includes(p.method)) problems.push(`method must be none|rag|memp|memrl (got ${String(p.method)})`);
  if (!['adjustment', 'vanilla', 'validation'].includes(p.updateStrategy)) {
    problems.push(`updateStrategy must be adjustment|vanilla|validation (got ${String(p.updateStrategy)})`);
  }
  return problems;
}
